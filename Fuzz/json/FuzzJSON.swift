// libFuzzer target: the JSON reader, writer and streaming array reader on arbitrary bytes.
//
// Checks, besides "no crash, no leak, no hang":
// - `JSONReader.validate` accepts exactly what `JSONReader.parse` accepts;
// - an accepted document written compact, and pretty with sorted keys, reads back equal;
// - `JSONArrayStream` (chunk size 1–64 bytes, from the input's first byte) yields exactly
//   the elements of a top-level array (any other document: itself, once), and throws
//   for anything `parse` rejects.
import Foundation
import FuzzSupport
import Trellis

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzJSON(fuzzInput(start, count)) } }
}

func fuzzJSON(_ bytes: [UInt8]) -> CInt {
    let options = JSONReader.Options(maximumDepth: 64)
    let parsed: JSONValue?
    do { parsed = try JSONReader.parse(bytes, options: options) } catch { parsed = nil }
    let valid: Bool
    do {
        try JSONReader.validate(Data(bytes), options: options)
        valid = true
    } catch { valid = false }
    precondition(valid == (parsed != nil), "validate and parse disagree")

    if let parsed {
        for writerOptions in [JSONWriter.Options(), JSONWriter.Options(format: .pretty, sortedKeys: true)] {
            do {
                let written = try JSONWriter.bytes(for: parsed, options: writerOptions)
                let reread = try JSONReader.parse(written, options: JSONReader.Options(maximumDepth: 128))
                precondition(sameValue(reread, parsed), "write → read changed the value")
            } catch {
                preconditionFailure("an accepted document could not be written and read back: \(error)")
            }
        }
    }

    let chunkSize = Int(bytes.first ?? 1) % 64 + 1
    let stream = JSONArrayStream(bytes: bytes, options: options, chunkSize: chunkSize)
    var streamed: [JSONValue] = []
    do {
        while let element = try stream.next() { streamed.append(element) }
        guard let parsed else { preconditionFailure("the stream accepted what parse rejects") }
        // An array yields its elements; any other document yields itself, once.
        let expected = parsed.arrayValue ?? [parsed]
        precondition(streamed.count == expected.count && zip(streamed, expected).allSatisfy(sameValue), "stream and parse disagree")
    } catch {
        precondition(parsed == nil, "the stream rejected a valid document: \(error)")
    }
    return 0
}

/// Equality where object key order matters nowhere (sorted-key output reorders members).
func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.object(let x), .object(let y)):
        guard x.count == y.count else { return false }
        for (key, value) in x {
            guard let other = y[key], sameValue(value, other) else { return false }
        }
        return true
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameValue)
    default:
        return a == b
    }
}
