// libFuzzer target: the Trellis JSON model format reader (entities, annotations, bindings).
//
// Checks, besides "no crash, no leak, no hang": a model file that reads, encoded back to
// its JSON form, reads again into a model file with the same JSON form.
import Foundation
import FuzzSupport
import Trellis
import TrellisModelFile

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzJSONModel(fuzzInput(start, count)) } }
}

func fuzzJSONModel(_ bytes: [UInt8]) -> CInt {
    let data = Data(bytes)
    guard let file = try? ModelFile.read(data: data) else { return 0 }
    let encoded = file.jsonValue
    let reread: ModelFile
    do { reread = try ModelFile.read(json: encoded) } catch {
        preconditionFailure("an encoded model file does not read back: \(error)")
    }
    precondition(reread.jsonValue == encoded, "encode → read changed the model file")
    return 0
}
