import Foundation
import Trellis
import TrellisModelFile

/// Reads the inputs of `trellis model infer` and of an import without `--model` into a
/// ``ModelInference``, streaming: each element is summarised and dropped, so a 1 GB array
/// is read in bounded memory. The elements are the ones `trellis import` reads (the same
/// ``InputElementReader``), so the model fits what the import then sees.
struct InferenceReading {
    var inputs: [InputFile]
    var at: JSONKeyPath?
    /// `--format`; nil: each input's by its name (``InputFile/readsLines(format:)``).
    var format: InputFormat?
    var entity: String
    /// Elements to read from each input at most (`--sample`); nil reads them all.
    var sample: Int?
    /// Entities of a recorded model the new samples may refer to (`eventId` → `Event`).
    var knownEntities: [KnownEntity] = []
    /// `trellis import --key-attribute`: an object is read member by member, and each
    /// member's key is sampled as the value of this key (unless the member has one), since
    /// the import stores it into the attribute of that name.
    var keyAttribute: String?
    /// `trellis import --value-key`: an element that is not an object is sampled as
    /// `{"KEY": element}`, as the import reads it (objects are read member by member).
    var valueKey: String?
    /// The readers of the inputs read, by input name: the lines of NDJSON records, for messages.
    private let readers = ReadInputs()

    /// The inputs read by ``infer()``, kept for the lines of their NDJSON records.
    private final class ReadInputs {
        var byName: [String: InputElementReader] = [:]
    }

    /// The inferred model.
    /// - Throws: ``CommandError`` `.invalidInput`: the reader's errors (malformed JSON with
    ///   line and column, `--at` leading nowhere), and `FILE: PATH: …` for an input without
    ///   objects or with an element that is not an object.
    func infer() throws -> InferredModel {
        let inference = ModelInference(rootEntity: entity)
        inference.knownEntities = knownEntities
        for input in inputs {
            try InputCheck.check(input)
            let lines = input.readsLines(format: format)
            let reader = InputElementReader(
                input: input, at: at, lines: lines, alwaysMembers: keyAttribute != nil,
                valueKey: valueKey, entityName: entity)
            readers.byName[input.name] = reader
            var count = 0
            do {
                while sample.map({ count < $0 }) ?? true, let element = try reader.next() {
                    if element.isWholeValue {
                        count += try inference.add(collection: element.value, at: element.path, source: input.name)
                    } else {
                        var value = element.value
                        if let keyAttribute, let key = element.key, case .object(var object) = value, object[keyAttribute] == nil {
                            object.append(key: keyAttribute, value: .string(key))
                            value = .object(object)
                        }
                        try inference.add(value, at: element.path, source: input.name)
                        count += 1
                    }
                }
            } catch let error as ModelInferenceError {
                throw CommandError(.invalidInput, describe(error))
            }
            if count == 0 {
                let found = lines ? "no JSON records" : "an empty array"
                let path = lines ? nil : at.map { JSONPath.root.appending($0) } ?? .root
                throw CommandError(.invalidInput, inference.noObjects(at: path, source: input.name, found: found).description)
            }
        }
        do {
            return try inference.inferredModel()
        } catch {
            throw CommandError(.invalidInput, describe(error))
        }
    }

    /// `FILE: PATH: message`, or for a value of an NDJSON record `FILE:LINE: PATH: message`
    /// (docs/CLI.md, "Exit status and errors"), for an error of ``infer()`` or of extending
    /// a recorded model with its result.
    func describe(_ error: ModelInferenceError) -> String {
        guard let source = error.source, let path = error.path, let reader = readers.byName[source], reader.lines,
            case .index(let record)? = path.components.first, let line = reader.line(ofRecord: record)
        else {
            return error.description
        }
        return "\(source):\(line): \(path): \(error.message)"
    }
}
