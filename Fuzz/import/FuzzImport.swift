// libFuzzer target: the importer, with arbitrary JSON against the Twitter example model
// (Examples/twitter/model.json, read from the working directory or $TRELLIS_FUZZ_MODEL)
// into an in-memory store.
//
// Every input is imported as `Status` objects at the top level (an array or one object),
// saved, and the stored statuses exported back to JSON. Checks, besides "no crash, no
// leak, no hang": a failed import leaves the store empty (imports are atomic); a
// successful one exports every stored status.
import Foundation
import FuzzSupport
import Trellis
import TrellisModelFile

let modelFile: ModelFile = {
    let path = ProcessInfo.processInfo.environment["TRELLIS_FUZZ_MODEL"] ?? "Examples/twitter/model.json"
    do { return try ModelFile.read(from: URL(fileURLWithPath: path)) } catch {
        fatalError("the fuzz target needs the Twitter example model: \(error)")
    }
}()

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzImport(fuzzInput(start, count)) } }
}

func fuzzImport(_ bytes: [UInt8]) -> CInt {
    guard let json = try? JSONReader.parse(bytes, options: JSONReader.Options(maximumDepth: 64)) else { return 0 }
    let store = InMemoryStore(model: modelFile.model)
    let context = ObjectContext(store: store, bindings: modelFile.bindings)
    do {
        _ = try context.importObjects(from: json, entity: "Status")
    } catch {
        let reader = ObjectContext(store: store, bindings: modelFile.bindings)
        for entity in ["Status", "User", "Hashtag"] {
            precondition((try? reader.fetch(entity))?.isEmpty == true, "a failed import left \(entity) objects behind")
        }
        return 0
    }
    let reader = ObjectContext(store: store, bindings: modelFile.bindings)
    do {
        let statuses = try reader.fetch("Status")
        let exported = try reader.exportJSON(statuses)
        precondition(exported.arrayValue?.count == statuses.count, "export lost statuses")
    } catch {
        preconditionFailure("stored statuses do not fetch or export: \(error)")
    }
    return 0
}
