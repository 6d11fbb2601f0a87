import Foundation

/// Encodes `Encodable` values as JSON: the API of Foundation's `JSONEncoder`, and with
/// `.sortedKeys` (compact or `.prettyPrinted`) the same bytes.
///
///     let encoder = TrellisJSONEncoder()
///     encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
///     encoder.dateEncodingStrategy = .iso8601
///     let data = try encoder.encode(response)
///
/// Output rules (Foundation's on this platform, pinned by tests): integers in decimal,
/// `Double` and `Float` as their shortest round-trip text without a trailing `.0`
/// (`1`, `0.1`, `1e+100`, `-0`, `1e-07`), `Decimal` as its description; strings escape
/// `"`, `\`, `/` (unless `.withoutEscapingSlashes`), `\b \t \n \f \r` and other controls as
/// `\u00XX`, everything else as UTF-8; `.prettyPrinted` indents by two spaces, writes
/// `"key" : value`, and an empty array or object as `[`, an empty line, and `]`. With
/// `.sortedKeys`, members are sorted by the UTF-8 bytes of their keys. Without it, members
/// keep the order they were encoded in (Foundation's order is its dictionary's).
///
/// - Throws: `EncodingError.invalidValue` as Foundation throws it (a non-finite float with
///   `.throw`, at its coding path; a top-level value that encodes nothing).
open class TrellisJSONEncoder: @unchecked Sendable {
    // MARK: - Options (Foundation's cases and payloads)

    /// The layout of the output.
    public struct OutputFormatting: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Indented output: two spaces per level, `"key" : value`.
        public static let prettyPrinted = OutputFormatting(rawValue: 1 << 0)
        /// Object members sorted by key (UTF-8 byte order).
        public static let sortedKeys = OutputFormatting(rawValue: 1 << 1)
        /// `/` written as is rather than as `\/`.
        public static let withoutEscapingSlashes = OutputFormatting(rawValue: 1 << 3)
    }

    /// How `Date` values are written.
    public enum DateEncodingStrategy: Sendable {
        /// `Date`'s own `encode(to:)`: seconds since 2001-01-01 (the default).
        case deferredToDate
        /// Seconds since 1970-01-01T00:00:00Z, a number.
        case secondsSince1970
        /// Milliseconds since 1970-01-01T00:00:00Z, a number.
        case millisecondsSince1970
        /// An RFC 3339 string, as Foundation's `.iso8601` writes it (`1970-01-01T00:00:00Z`).
        case iso8601
        /// The string `formatter` makes.
        case formatted(DateFormatter)
        /// What the closure encodes (an empty object when it encodes nothing).
        @preconcurrency case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` values are written.
    public enum DataEncodingStrategy: Sendable {
        /// `Data`'s own `encode(to:)`: an array of bytes.
        case deferredToData
        /// A Base64 string (the default).
        case base64
        /// What the closure encodes (an empty object when it encodes nothing).
        @preconcurrency case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// How infinities and NaN are written.
    public enum NonConformingFloatEncodingStrategy: Sendable {
        /// They are an error (the default).
        case `throw`
        /// They are written as these strings.
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How coding keys become JSON keys.
    public enum KeyEncodingStrategy: Sendable {
        /// The keys as they are (the default).
        case useDefaultKeys
        /// `oneTwoThree` → `one_two_three`, `myURLValue` → `my_url_value` (Foundation's rules).
        case convertToSnakeCase
        /// The closure maps the coding path ending in the key to the key to write.
        @preconcurrency case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    struct Options {
        var outputFormatting: OutputFormatting = []
        var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
        var dataEncodingStrategy: DataEncodingStrategy = .base64
        var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
        var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    }

    private var options = Options()
    private let lock = NSLock()

    // MARK: - Properties

    /// The layout of the output. Default `[]` (compact, encoding order, `/` escaped).
    open var outputFormatting: OutputFormatting {
        get { locked { $0.outputFormatting } }
        set { locked { $0.outputFormatting = newValue } }
    }

    /// How `Date` values are written. Default `.deferredToDate`.
    open var dateEncodingStrategy: DateEncodingStrategy {
        get { locked { $0.dateEncodingStrategy } }
        set { locked { $0.dateEncodingStrategy = newValue } }
    }

    /// How `Data` values are written. Default `.base64`.
    open var dataEncodingStrategy: DataEncodingStrategy {
        get { locked { $0.dataEncodingStrategy } }
        set { locked { $0.dataEncodingStrategy = newValue } }
    }

    /// How infinities and NaN are written. Default `.throw`.
    open var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy {
        get { locked { $0.nonConformingFloatEncodingStrategy } }
        set { locked { $0.nonConformingFloatEncodingStrategy = newValue } }
    }

    /// How coding keys become JSON keys. Default `.useDefaultKeys`.
    open var keyEncodingStrategy: KeyEncodingStrategy {
        get { locked { $0.keyEncodingStrategy } }
        set { locked { $0.keyEncodingStrategy = newValue } }
    }

    /// Values every encoder of an encode call hands to `encode(to:)`.
    @preconcurrency open var userInfo: [CodingUserInfoKey: any Sendable] {
        get { locked { $0.userInfo } }
        set { locked { $0.userInfo = newValue } }
    }

    /// An encoder with Foundation's defaults.
    public init() {}

    // MARK: - Encoding

    /// The UTF-8 JSON text of `value` (any value: objects, arrays and fragments).
    /// - Throws: `EncodingError.invalidValue` (see the type's notes), or an error thrown by
    ///   an `encode(to:)`.
    open func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try encodedBytes(value))
    }

    /// The UTF-8 JSON text of `value` as bytes. See ``encode(_:)``.
    open func encodedBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let options = locked { $0 }
        let state = CodableEncodingState(options: options)
        guard let root = try state.box(value, path: .root, key: nil) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        var writer = CodableJSONWriter(formatting: options.outputFormatting)
        writer.write(root)
        return writer.bytes
    }

    /// The strategies now, for one encode call.
    func currentOptions() -> Options { locked { $0 } }

    private func locked<R>(_ body: (inout Options) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&options)
    }
}
