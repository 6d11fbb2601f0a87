// libFuzzer target: the NDJSON / JSON Lines reader on arbitrary bytes.
//
// Checks, besides "no crash, no leak, no hang": reading all records at once and
// record by record (chunk size 1–64 bytes, from the input's first byte) agree exactly —
// the same records, or both fail at the same line and column; and a failed reader keeps
// throwing the same error.
import FuzzSupport
import Trellis

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzNDJSON(fuzzInput(start, count)) } }
}

func fuzzNDJSON(_ bytes: [UInt8]) -> CInt {
    let options = JSONReader.Options(maximumDepth: 64)
    var whole: Result<[JSONValue], JSONParseError>
    do { whole = .success(try JSONLinesReader.parse(bytes, options: options)) } catch { whole = .failure(error) }

    let reader = JSONLinesReader(bytes: bytes, options: options, chunkSize: Int(bytes.first ?? 1) % 64 + 1)
    var records: [JSONValue] = []
    do {
        while let record = try reader.next() { records.append(record) }
        guard case .success(let expected) = whole else { preconditionFailure("the streaming reader accepted what parse rejects") }
        precondition(records == expected, "streaming and whole-input records differ")
    } catch {
        guard case .failure(let expected) = whole else { preconditionFailure("the streaming reader rejected valid input: \(error)") }
        precondition(
            error.line == expected.line && error.column == expected.column,
            "streaming error \(error) differs from \(expected)")
        do {
            _ = try reader.next()
            preconditionFailure("a failed reader returned a record")
        } catch let again {
            precondition(again.line == error.line && again.column == error.column, "a failed reader changed its error")
        }
    }
    return 0
}
