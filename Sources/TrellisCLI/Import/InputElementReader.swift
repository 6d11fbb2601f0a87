import Foundation
import Trellis

/// Reads the elements to import from one input, streaming, in bounded memory.
///
/// The collection is the whole document, or the value at `--at`:
/// - an array: each element (`$.statuses[3]`);
/// - an object of objects, keyed by id (`$.events["138586341"]`, with the key): when
///   `--key-attribute` or `--value-key` is given (and only then: the object's members are
///   never inspected, so JSON member order cannot change the reading);
/// - otherwise a single object (`--at statuses.0`, or a document that is one object);
/// - a scalar or `null` is an error naming its path (`$.search_metadata.count: expected an
///   array or object of Status objects, found a number`); NDJSON records without `--at`
///   are elements, so a scalar record is a bare identifier there.
///
/// With `--value-key KEY`, an element that is not an object becomes `{"KEY": element}`,
/// so an id → name table (`{"205705993": "Arrière-scène central"}`) imports as objects.
/// With `--format ndjson` every line is a document (paths are `$[record]…`, and
/// ``line(ofRecord:)`` gives the line of a record).
final class InputElementReader {
    /// One element to import.
    struct Element {
        var value: JSONValue
        /// Where the element is in its document (`$.statuses[3]`).
        var path: JSONPath
        /// The member key, for an object of objects.
        var key: String?
    }

    private enum Source {
        case stream(JSONArrayStream)
        case lines(JSONLinesReader)
    }

    let input: InputFile
    private let source: Source
    private let at: JSONKeyPath?
    private let basePath: JSONPath
    private let alwaysMembers: Bool
    private let valueKey: String?
    private let entityName: String
    private var pending: [Element] = []
    private var pendingIndex = 0
    private var finished = false
    /// record index → line, for NDJSON inputs.
    private var recordLines: [Int] = []

    /// Opens `input`.
    /// - Parameters:
    ///   - alwaysMembers: read an object as an object of objects (`--key-attribute`).
    ///   - entityName: the entity imported, for error messages.
    /// - Throws: ``CommandError`` `.invalidInput` when the file cannot be opened.
    init(input: InputFile, at: JSONKeyPath?, lines: Bool, alwaysMembers: Bool, valueKey: String?,
         entityName: String) throws {
        self.input = input
        self.at = at
        self.alwaysMembers = alwaysMembers || valueKey != nil
        self.valueKey = valueKey
        self.entityName = entityName
        basePath = lines ? .root : at.map { JSONPath.root.appending($0) } ?? .root
        let objects: JSONArrayStream.ObjectHandling = self.alwaysMembers ? .members : .single
        do {
            switch (input.url, lines) {
            case (let url?, false):
                source = .stream(try JSONArrayStream(contentsOf: url, at: at, objects: objects))
            case (nil, false):
                source = .stream(JSONArrayStream(fileHandle: FileHandle.standardInput, at: at, objects: objects))
            case (let url?, true):
                source = .lines(try JSONLinesReader(contentsOf: url))
            case (nil, true):
                source = .lines(JSONLinesReader(fileHandle: FileHandle.standardInput))
            }
        } catch {
            throw CommandError(.invalidInput, "\(input.name): \(error.message)")
        }
    }

    /// The size of the input in bytes, when known.
    var totalBytes: Int? {
        switch source {
        case .stream(let stream): return stream.totalBytes
        case .lines(let reader): return reader.totalBytes
        }
    }

    /// Bytes read so far.
    var bytesConsumed: Int {
        switch source {
        case .stream(let stream): return stream.bytesConsumed
        case .lines(let reader): return reader.bytesConsumed
        }
    }

    /// `true` for NDJSON input (element paths start with the record index).
    var isLines: Bool {
        if case .lines = source { return true }
        return false
    }

    /// The line of NDJSON record `index` (0-based), if known.
    func line(ofRecord index: Int) -> Int? {
        recordLines.indices.contains(index) ? recordLines[index] : nil
    }

    /// The next element, or nil after the last.
    /// - Throws: ``CommandError`` `.invalidInput`: `FILE:LINE:COLUMN: message` for malformed
    ///   JSON, `FILE: no value at 'KEYPATH'` when `--at` does not exist.
    func next() throws -> Element? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            if finished { return nil }
            do {
                switch source {
                case .stream(let stream):
                    if let element = try stream.nextElement() {
                        return try accept(element)
                    }
                    finished = true
                case .lines(let reader):
                    if let record = try reader.next() {
                        recordLines.append(reader.line)
                        try expand(record: record, index: recordLines.count - 1)
                    } else {
                        finished = true
                    }
                }
            } catch let error as JSONParseError {
                if error.code == .keyPathNotFound, let at {
                    throw CommandError(.invalidInput, "\(input.name): no value at '\(at)' (--at): \(error.message)")
                }
                throw CommandError(.invalidInput, "\(input.name):\(error.line):\(error.column): \(error.message)")
            }
        }
    }

    // MARK: - Internals

    /// The element for one streamed value.
    private func accept(_ element: JSONArrayStream.Element) throws -> Element {
        if element.isWholeValue {
            try checkCollection(element.value, at: basePath, linePrefix: "")
            return Element(value: element.value, path: basePath, key: nil)
        }
        if let key = element.key {
            return Element(value: wrapped(element.value), path: basePath.appending(key: key), key: key)
        }
        return Element(value: wrapped(element.value), path: basePath.appending(index: element.index), key: nil)
    }

    /// Throws unless `value`, the collection at `--at` (or the whole document), is an array or an object.
    private func checkCollection(_ value: JSONValue, at path: JSONPath, linePrefix: String) throws {
        let found: String
        switch value {
        case .array, .object: return
        case .null: found = "null"
        case .bool: found = "a boolean"
        case .number: found = "a number"
        case .string: found = "a string"
        }
        throw CommandError(.invalidInput, "\(input.name): \(linePrefix)\(path): expected an array or object of \(entityName) objects, found \(found)")
    }

    /// The elements of one NDJSON record (the record itself, or the collection at `--at` in it).
    private func expand(record: JSONValue, index: Int) throws {
        let recordPath = JSONPath.root.appending(index: index)
        var target = record
        var targetPath = recordPath
        if let at {
            guard let value = at.lookup(in: record).value else {
                throw CommandError(.invalidInput, "\(input.name): line \(recordLines[index]): no value at '\(at)' (--at)")
            }
            target = value
            targetPath = recordPath.appending(at)
        }
        switch target {
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                pending.append(Element(value: wrapped(element), path: targetPath.appending(index: i), key: nil))
            }
        case .object(let object):
            if alwaysMembers {
                for (key, value) in object {
                    pending.append(Element(value: wrapped(value), path: targetPath.appending(key: key), key: key))
                }
            } else {
                pending.append(Element(value: target, path: targetPath, key: nil))
            }
        default:
            if at != nil { try checkCollection(target, at: targetPath, linePrefix: "line \(recordLines[index]): ") }
            pending.append(Element(value: wrapped(target), path: targetPath, key: nil))
        }
    }

    /// `{"valueKey": value}` for a non-object element when `--value-key` is given.
    private func wrapped(_ value: JSONValue) -> JSONValue {
        guard let valueKey, value.objectValue == nil else { return value }
        var object = JSONObject()
        object.append(key: valueKey, value: value)
        return .object(object)
    }
}
