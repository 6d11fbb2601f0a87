// libFuzzer target: the Core Data model reader (the `contents` XML of an .xcdatamodel).
//
// Checks, besides "no crash, no leak, no hang": a model that reads, written back with
// `CoreDataModelWriter`, reads again into a model that writes the same XML (a fixpoint).
import Foundation
import FuzzSupport
import TrellisModelFile

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzCoreDataModel(fuzzInput(start, count)) } }
}

func fuzzCoreDataModel(_ bytes: [UInt8]) -> CInt {
    let data = Data(bytes)
    guard let read = try? CoreDataModelReader.read(contents: data) else { return 0 }
    let writer = CoreDataModelWriter()
    guard let written = try? writer.contents(for: read.model) else { return 0 }
    let reread: CoreDataModel
    do { reread = try CoreDataModelReader.read(contents: Data(written.utf8)) } catch {
        preconditionFailure("written XML does not read back: \(error)\n\(written)")
    }
    let rewritten = try? writer.contents(for: reread.model)
    precondition(rewritten == written, "the writer is not a fixpoint:\n\(written)\n---\n\(rewritten ?? "nil")")
    return 0
}
