// libFuzzer target: model inference, on arbitrary JSON collections.
//
// Checks, besides "no crash, no leak, no hang": every collection inference accepts gives a
// valid model (inferredModel() does not throw once an object was added, except its documented
// `.notRecords` for an object keyed by data, e.g. numeric keys whose members' ids differ
// from their keys, so it is not a collection keyed by identity); inferring twice
// gives the same bytes; the model extended with itself is unchanged; and the inferred model
// imports its own payload (an array of objects) into an in-memory store without error.
import Foundation
import FuzzSupport
import Trellis
import TrellisModelFile

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzInfer(fuzzInput(start, count)) } }
}

func infer(_ json: JSONValue) -> InferredModel? {
    let inference = ModelInference(rootEntity: "Item")
    guard (try? inference.add(collection: json, at: .root)) != nil else { return nil }
    do {
        return try inference.inferredModel()
    } catch  where error.code == .notRecords {
        return nil
    } catch {
        preconditionFailure("objects were added but no model was inferred: \(error)")
    }
}

func fuzzInfer(_ bytes: [UInt8]) -> CInt {
    guard let json = try? JSONReader.parse(bytes, options: JSONReader.Options(maximumDepth: 32)),
        let inferred = infer(json)
    else { return 0 }
    precondition(infer(json)?.file.data() == inferred.file.data(), "inference is not deterministic")
    do {
        let extended = try ModelExtension.extend(inferred.file, with: inferred)
        precondition(extended.changes.isEmpty, "a model extended with itself changed: \(extended.changes)")
    } catch {
        preconditionFailure("a model cannot be extended with itself: \(error)")
    }
    guard case .array = json, !inferred.isKeyedCollection else { return 0 }
    let context = ObjectContext(store: InMemoryStore(model: inferred.file.model), bindings: inferred.file.bindings)
    do {
        _ = try context.importObjects(from: json, entity: "Item")
    } catch {
        preconditionFailure("the inferred model does not import its payload: \(error)")
    }
    return 0
}
