import Foundation

/// Decodes `Decodable` values from JSON with Trellis's reader: the API, results and errors
/// of Foundation's `JSONDecoder`, plus where in the text a failing value is.
///
/// Replacing `JSONDecoder()` with `TrellisJSONDecoder()` compiles unchanged (the strategy
/// enums have Foundation's cases and payloads) and decodes the same values: integers of
/// every width (overflow is Foundation's `dataCorrupted`), `Decimal` exactly, `Double` and
/// `Float` correctly rounded from the text, `URL`, `Date` and `Data` with every strategy,
/// a repeated key keeping its first value, top-level fragments.
///
///     let decoder = TrellisJSONDecoder()
///     decoder.keyDecodingStrategy = .convertFromSnakeCase
///     decoder.dateDecodingStrategy = .iso8601
///     let response = try decoder.decode(SearchResponse.self, from: data)
///
/// Errors are the `DecodingError` Foundation throws, with the same case and `codingPath`;
/// the context's `debugDescription` ends with the failing value's place:
/// `Expected to decode Int but found a string instead. (line 3, column 12, at $.statuses[0].id)`.
/// Input that is not JSON is `dataCorrupted` at the empty path, described with the
/// reader's ``JSONParseError`` (line, column, what was expected), which is also the
/// context's `underlyingError`.
///
/// Strict RFC 8259 (no JSON5); arrays and objects nest at most 512 levels (deeper input
/// is an error, never a stack overflow). Thread safety: the strategies are read once per
/// `decode` call under a lock, so one decoder may be shared, as Foundation's may.
///
/// - Complexity: O(n) in the input; memory for the parsed document (see ``JSONReader``).
open class TrellisJSONDecoder: @unchecked Sendable {
    // MARK: - Strategies (Foundation's cases and payloads)

    /// How `Date` values are read.
    public enum DateDecodingStrategy: Sendable {
        /// `Date`'s own `init(from:)`: seconds since 2001-01-01 as a number. The default.
        case deferredToDate
        /// A number of seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// An RFC 3339 string (`2024-05-01T12:00:00Z`), read as Foundation's `.iso8601` reads it.
        case iso8601
        /// A string read by `formatter`.
        case formatted(DateFormatter)
        /// The closure's result for the value's decoder.
        @preconcurrency case custom(@Sendable (_ decoder: any Decoder) throws -> Date)
    }

    /// How `Data` values are read.
    public enum DataDecodingStrategy: Sendable {
        /// `Data`'s own `init(from:)`: an array of bytes.
        case deferredToData
        /// A Base64 string (the default).
        case base64
        /// The closure's result for the value's decoder.
        @preconcurrency case custom(@Sendable (_ decoder: any Decoder) throws -> Data)
    }

    /// How `Float` and `Double` read values JSON cannot write (infinities, NaN).
    public enum NonConformingFloatDecodingStrategy: Sendable {
        /// Such values are not accepted (the default).
        case `throw`
        /// Strings equal (byte for byte) to one of these become the value.
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// How JSON object keys become the keys of the decoded types.
    public enum KeyDecodingStrategy: Sendable {
        /// The keys as written (the default).
        case useDefaultKeys
        /// `snake_case_keys` become `camelCaseKeys` (Foundation's rules: leading and
        /// trailing underscores kept, a key without inner underscores unchanged).
        case convertFromSnakeCase
        /// The closure maps the coding path ending in the JSON key to the key to use.
        @preconcurrency case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// The strategies of one decode call.
    struct Options {
        var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
        var dataDecodingStrategy: DataDecodingStrategy = .base64
        var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
        var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    }

    private var options = Options()
    private let lock = NSLock()

    // MARK: - Properties

    /// How `Date` values are read. Default `.deferredToDate`.
    open var dateDecodingStrategy: DateDecodingStrategy {
        get { locked { $0.dateDecodingStrategy } }
        set { locked { $0.dateDecodingStrategy = newValue } }
    }

    /// How `Data` values are read. Default `.base64`.
    open var dataDecodingStrategy: DataDecodingStrategy {
        get { locked { $0.dataDecodingStrategy } }
        set { locked { $0.dataDecodingStrategy = newValue } }
    }

    /// How infinities and NaN are read. Default `.throw`.
    open var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy {
        get { locked { $0.nonConformingFloatDecodingStrategy } }
        set { locked { $0.nonConformingFloatDecodingStrategy = newValue } }
    }

    /// How object keys are matched to coding keys. Default `.useDefaultKeys`.
    open var keyDecodingStrategy: KeyDecodingStrategy {
        get { locked { $0.keyDecodingStrategy } }
        set { locked { $0.keyDecodingStrategy = newValue } }
    }

    /// Values every decoder and container of a decode call hands to `init(from:)`.
    @preconcurrency open var userInfo: [CodingUserInfoKey: any Sendable] {
        get { locked { $0.userInfo } }
        set { locked { $0.userInfo = newValue } }
    }

    /// A decoder with Foundation's defaults.
    public init() {}

    // MARK: - Decoding

    /// A value of `type` decoded from the UTF-8 JSON text `data` (a leading byte order mark
    /// is skipped, as Foundation skips it).
    ///
    /// - Throws: `DecodingError`, as `JSONDecoder` throws it (see the type's notes), or an
    ///   error thrown by an `init(from:)`.
    open func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { buffer in try decode(type, fromBytes: buffer) }
    }

    /// A value of `type` decoded from UTF-8 JSON bytes (contiguous storage is read in place,
    /// other collections are copied once). See ``decode(_:from:)-(_,Data)``.
    open func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in
            try decode(type, fromBytes: UnsafeRawBufferPointer(buffer))
        }) {
            return result
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBytes { buffer in try decode(type, fromBytes: buffer) }
    }

    // MARK: - Internals

    /// The strategies now, for one decode call.
    func currentOptions() -> Options { locked { $0 } }

    private func locked<R>(_ body: (inout Options) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&options)
    }

    /// `type` decoded from `bytes` (any Unicode encoding JSON allows), from the value at
    /// `keyPath` when one is given (see ``decode(_:from:at:)-(_,Data,_)``).
    func decode<T: Decodable>(_ type: T.Type, fromBytes bytes: UnsafeRawBufferPointer, at keyPath: JSONKeyPath? = nil) throws -> T {
        if let encoding = Self.nonUTF8Encoding(of: bytes) {
            // UTF-16 and UTF-32 input, as Foundation detects it (RFC 4627 §3), read as UTF-8.
            guard var text = String(bytes: bytes.dropFirst(encoding.byteOrderMarkLength), encoding: encoding.encoding) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: [],
                        debugDescription: "The given data was not valid JSON. line 1, column 1: the input is not valid \(encoding.encoding) text"))
            }
            return try text.withUTF8 { utf8 in try decodeUTF8(type, fromBytes: UnsafeRawBufferPointer(utf8), at: keyPath) }
        }
        return try decodeUTF8(type, fromBytes: bytes, at: keyPath)
    }

    /// The encoding of UTF-16 or UTF-32 JSON text (from a byte order mark, or from where
    /// the zero bytes of the first, ASCII, characters are), nil for UTF-8.
    static func nonUTF8Encoding(of bytes: UnsafeRawBufferPointer) -> (encoding: String.Encoding, byteOrderMarkLength: Int)? {
        let count = bytes.count
        func byte(_ i: Int) -> UInt8? { i < count ? bytes[i] : nil }
        switch (byte(0), byte(1), byte(2), byte(3)) {
        case (0, 0, 0xFE, 0xFF): return (.utf32BigEndian, 4)
        case (0xFE, 0xFF, 0, 0): return (.utf32LittleEndian, 4)
        case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
        case (0xEF, 0xBB, 0xBF, _): return nil
        case (0, 0, 0, .some(let b)) where b != 0: return (.utf32BigEndian, 0)
        case (0, .some(let a), 0, .some(let b)) where a != 0 && b != 0: return (.utf16BigEndian, 0)
        case (.some(let b), 0, 0, 0) where b != 0: return (.utf32LittleEndian, 0)
        case (.some(let a), 0, .some(let b), 0) where a != 0 && b != 0: return (.utf16LittleEndian, 0)
        case (0, .some(let b), nil, nil) where b != 0: return (.utf16BigEndian, 0)
        case (.some(let b), 0, nil, nil) where b != 0: return (.utf16LittleEndian, 0)
        default: return nil
        }
    }

    func decodeUTF8<T: Decodable>(_ type: T.Type, fromBytes bytes: UnsafeRawBufferPointer, at keyPath: JSONKeyPath? = nil) throws -> T {
        let options = locked { $0 }
        let root: JSONValue
        do {
            root = try JSONReader.parseForCodable(bytes)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON. \(error.description)", underlyingError: error))
        }
        let state = CodableDecodingState(options: options)
        do {
            var value = root
            var path = CodablePath.root
            for component in keyPath?.components ?? [] {
                (value, path) = try Self.step(into: value, component, path: path, state: state)
            }
            return try state.unwrap(value, as: T.self, path: path, key: nil)
        } catch let error as DecodingError {
            throw CodableErrorLocator.located(
                error, state: state, in: bytes,
                frame: CodableErrorLocator.Frame(rawKeys: keyPath?.components.count ?? 0))
        }
    }
}

extension JSONReader {
    /// Parses `bytes` with Foundation `JSONDecoder`'s choices where they differ from the
    /// reader's defaults: a repeated key keeps its first value, `-0` keeps its text.
    static func parseForCodable(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        let options = Options()
        var parser = JSONParser(options: options, expectedSize: bytes.count)
        parser.codableSemantics = true
        parser.reset(bytes, isFinal: true)
        do {
            try skipByteOrderMark(&parser, options: options)
            return try parser.parseDocument()
        } catch {
            throw JSONTextPosition.error(code: error.code, message: error.message, offset: error.offset, in: bytes)
        }
    }
}
