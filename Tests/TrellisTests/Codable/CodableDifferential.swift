import Foundation
import Testing

@testable import Trellis

/// The outcome of one decode, in a form two decoders' outcomes can be compared in:
/// the value's full description (`-0.0`, every bit of a `Double`), or the error's case,
/// type, coding path (string and int values of each key) and, for `keyNotFound`, the key.
enum DecodeOutcome: Equatable, CustomStringConvertible {
    case value(String)
    case error(kind: String, codingPath: [String], message: String)

    var description: String {
        switch self {
        case .value(let text): return "value \(text)"
        case .error(let kind, let path, let message): return "\(kind) at \(path) (\(message))"
        }
    }

    static func == (lhs: DecodeOutcome, rhs: DecodeOutcome) -> Bool {
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)): return a == b
        case (.error(let k1, let p1, _), .error(let k2, let p2, _)): return k1 == k2 && p1 == p2
        default: return false
        }
    }

    init(catching body: () throws -> some Any) {
        do {
            self = .value(canonicalDescription(try body()))
        } catch let error as DecodingError {
            self = DecodeOutcome(error)
        } catch {
            self = .error(kind: "other \(type(of: error))", codingPath: [], message: "\(error)")
        }
    }

    init(_ error: DecodingError) {
        switch error {
        case .typeMismatch(let type, let context):
            self = .error(kind: "typeMismatch(\(type))", codingPath: context.codingPath.codableDescription, message: context.debugDescription)
        case .valueNotFound(let type, let context):
            self = .error(kind: "valueNotFound(\(type))", codingPath: context.codingPath.codableDescription, message: context.debugDescription)
        case .keyNotFound(let key, let context):
            self = .error(kind: "keyNotFound(\(key.stringValue))", codingPath: context.codingPath.codableDescription, message: context.debugDescription)
        case .dataCorrupted(let context):
            self = .error(kind: "dataCorrupted", codingPath: context.codingPath.codableDescription, message: context.debugDescription)
        @unknown default:
            self = .error(kind: "unknown", codingPath: [], message: "\(error)")
        }
    }

    var message: String? {
        if case .error(_, _, let message) = self { return message }
        return nil
    }
}

extension Array where Element == any CodingKey {
    /// `name` for a string key, `name#3` for a key with an int value.
    var codableDescription: [String] {
        map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }
    }
}

/// Both decoders configured alike.
struct DecoderPair {
    var foundation = JSONDecoder()
    var trellis = TrellisJSONDecoder()

    init(_ configure: (JSONDecoder, TrellisJSONDecoder) -> Void = { _, _ in }) {
        configure(foundation, trellis)
    }

    /// Both outcomes for `json` decoded as `type`.
    func outcomes<T: Decodable>(_ type: T.Type, _ json: String) -> (foundation: DecodeOutcome, trellis: DecodeOutcome) {
        let data = Data(json.utf8)
        return (DecodeOutcome { try foundation.decode(type, from: data) }, DecodeOutcome { try trellis.decode(type, from: data) })
    }

    /// Both outcomes for `data` decoded as `type`.
    func outcomes<T: Decodable>(_ type: T.Type, data: Data) -> (foundation: DecodeOutcome, trellis: DecodeOutcome) {
        (DecodeOutcome { try foundation.decode(type, from: data) }, DecodeOutcome { try trellis.decode(type, from: data) })
    }

    /// Expects the same value or the same error from both; an error's description from
    /// Trellis must start with Foundation's and add the place (`line L, column C, at $…`)
    /// (parse errors: the reader's description instead). Returns Trellis's outcome.
    @discardableResult
    func expectSame<T: Decodable>(_ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> DecodeOutcome {
        expectSame(type, data: Data(json.utf8), sourceLocation: sourceLocation)
    }

    @discardableResult
    func expectSame<T: Decodable>(_ type: T.Type, data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> DecodeOutcome {
        let (expected, actual) = outcomes(type, data: data)
        #expect(actual == expected, "\(String(decoding: data.prefix(300), as: UTF8.self)) as \(T.self)", sourceLocation: sourceLocation)
        if let foundationMessage = expected.message, let trellisMessage = actual.message, actual == expected {
            #expect(trellisMessage.hasPrefix(foundationMessage), "\(trellisMessage) vs \(foundationMessage)", sourceLocation: sourceLocation)
            #expect(trellisMessage.contains("line "), "\(trellisMessage)", sourceLocation: sourceLocation)
        }
        return actual
    }
}

/// A description that is the same for equal values: dictionaries (at any depth, also in
/// structs) listed in key order, every `Double` and `Float` with all its digits.
func canonicalDescription(_ value: Any) -> String {
    if let custom = value as? any CustomDebugStringConvertible, !(value is any Collection) { return custom.debugDescription }
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .dictionary?:
        let pairs = mirror.children.map { child -> String in
            let pair = Mirror(reflecting: child.value).children.map { canonicalDescription($0.value) }
            return pair.joined(separator: ": ")
        }
        return "[" + pairs.sorted().joined(separator: ", ") + "]"
    case .collection?, .set?:
        let elements = mirror.children.map { canonicalDescription($0.value) }
        return "[" + (mirror.displayStyle == .set ? elements.sorted() : elements).joined(separator: ", ") + "]"
    case .optional?:
        guard let child = mirror.children.first else { return "nil" }
        return canonicalDescription(child.value)
    case .struct?, .class?:
        if mirror.children.isEmpty { return String(reflecting: value) }
        return "\(type(of: value))(" + mirror.children.map { "\($0.label ?? ""): \(canonicalDescription($0.value))" }.joined(separator: ", ") + ")"
    default:
        return String(reflecting: value)
    }
}
