// libFuzzer target: the JSON key path parser, lookup and write on arbitrary text.
//
// Checks, besides "no crash, no leak, no hang":
// - a parsed key path's `description` parses back to the same components;
// - writing a value at the key path into a fixed document and then looking it up gives
//   that value (when the write is allowed);
// - lookups never crash, whatever the document holds at the path.
import FuzzSupport
import Trellis

let document: JSONValue = [
    "a": ["b": ["c": 1], "list": [1, ["x": "y"], .null]],
    "0": ["1": "digits"],
    "a.b": "dotted",
    "items": [["id": 1], ["id": 2]],
    "n": .null,
    "s": "scalar",
]

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzKeyPath(fuzzInput(start, count)) } }
}

func fuzzKeyPath(_ bytes: [UInt8]) -> CInt {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let keyPath = try? JSONKeyPath(parsing: text) else { return 0 }
    let reparsed: JSONKeyPath
    do { reparsed = try JSONKeyPath(parsing: keyPath.description) } catch {
        preconditionFailure("description \(keyPath.description) of \(text) does not parse: \(error)")
    }
    precondition(reparsed == keyPath, "description round trip changed the key path")

    _ = keyPath.lookup(in: document)
    if case .object(let object) = document { _ = keyPath.lookup(in: object) }
    var written = document
    let marker: JSONValue = "written by the fuzzer"
    if (try? keyPath.set(marker, in: &written)) != nil {
        precondition(keyPath.lookup(in: written) == .present(marker), "a written value does not read back")
    }
    var empty: JSONValue = [:]
    if (try? keyPath.set(marker, in: &empty)) != nil {
        precondition(keyPath.lookup(in: empty) == .present(marker), "a written value does not read back from {}")
    }
    return 0
}
