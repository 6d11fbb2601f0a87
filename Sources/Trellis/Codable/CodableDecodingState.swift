import Foundation

/// What one `TrellisJSONDecoder.decode` call shares between its decoders and containers:
/// the strategies, `userInfo`, and the place of the last failure it raised (for the
/// line and column added to the error's description).
final class CodableDecodingState {
    let options: TrellisJSONDecoder.Options
    let userInfo: [CodingUserInfoKey: Any]
    let convertsKeys: Bool
    /// Where the last error made here really is, when its `codingPath` says otherwise
    /// (Foundation reports a number that does not fit at the empty path), and its text.
    var failure: (path: [any CodingKey], description: String)?

    init(options: TrellisJSONDecoder.Options) {
        self.options = options
        var info: [CodingUserInfoKey: Any] = [:]
        for (key, value) in options.userInfo { info[key] = value }
        userInfo = info
        if case .useDefaultKeys = options.keyDecodingStrategy { convertsKeys = false } else { convertsKeys = true }
    }

    // MARK: - Values

    /// `value` decoded as `T`, found at `path` + `key`; `decoderPath` is the path of the
    /// decoder whose containers are asking (Foundation reports some errors there).
    func unwrap<T: Decodable>(
        _ value: JSONValue, as type: T.Type, path: CodablePath, key: (any CodingKey)?, decoderPath: CodablePath? = nil
    ) throws -> T {
        if T.self == Data.self { return try unwrapData(value, path: path, key: key) as! T }
        if T.self == Date.self { return try unwrapDate(value, path: path, key: key, decoderPath: decoderPath ?? path) as! T }
        if T.self == URL.self { return try unwrapURL(value, path: path, key: key) as! T }
        if T.self == Decimal.self { return try unwrapDecimal(value, path: path, key: key) as! T }
        if convertsKeys, let dictionary = T.self as? any CodableStringDictionary.Type {
            return try unwrapDictionary(value, as: dictionary, path: path, key: key) as! T
        }
        return try T(from: CodableValueDecoder(value: value, path: path.appending(key), state: self))
    }

    private func checkNotNull(_ value: JSONValue, _ type: Any.Type, path: CodablePath, key: (any CodingKey)?) throws {
        if case .null = value {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: path.keys(appending: key), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
    }

    func typeMismatch(_ type: Any.Type, _ value: JSONValue, at codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.codableTypeDescription) instead."))
    }

    /// Foundation's error for a number that does not fit the requested type: the whole
    /// input reported as corrupted, at the empty path. The real place is kept for the description.
    private func notRepresentable(_ text: String, _ type: Any.Type, path: CodablePath, key: (any CodingKey)?) -> DecodingError {
        let description = "The given data was not valid JSON. Number \(text) is not representable as \(type)."
        failure = (path.keys(appending: key), description)
        return DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: description))
    }

    func unwrapString(_ value: JSONValue, path: CodablePath, key: (any CodingKey)?) throws -> String {
        if case .string(let string) = value { return string }
        try checkNotNull(value, String.self, path: path, key: key)
        throw typeMismatch(String.self, value, at: path.keys(appending: key))
    }

    func unwrapBool(_ value: JSONValue, path: CodablePath, key: (any CodingKey)?) throws -> Bool {
        // Foundation reports a null Bool as a type mismatch, not as a missing value.
        if case .bool(let bool) = value { return bool }
        throw typeMismatch(Bool.self, value, at: path.keys(appending: key))
    }

    /// An integer as Foundation reads it: exact integer text first; otherwise through
    /// `Double` (`1.0`, `1e2`) when below 2^53, else through the decimal digits.
    func unwrapInteger<T: FixedWidthInteger>(_ value: JSONValue, as type: T.Type, path: CodablePath, key: (any CodingKey)?) throws -> T {
        guard case .number(let number) = value else {
            try checkNotNull(value, T.self, path: path, key: key)
            throw typeMismatch(T.self, value, at: path.keys(appending: key))
        }
        switch number.storage {
        case .int(let int):
            if let exact = T(exactly: int) { return exact }
            throw notRepresentable(String(int), T.self, path: path, key: key)
        case .double(let double):
            if let exact = T(exactly: double) { return exact }
            throw notRepresentable(number.text, T.self, path: path, key: key)
        case .text(let text):
            if let exact = T(text) { return exact }
            if let double = Double(text), double.isFinite {
                guard let exact = T(exactly: double) else { throw notRepresentable(text, T.self, path: path, key: key) }
                if double.magnitude < 9_007_199_254_740_992 { return exact }
            }
            if let exact = CodableNumbers.integerThroughDecimal(text, as: T.self) { return exact }
            throw notRepresentable(text, T.self, path: path, key: key)
        }
    }

    /// A `Double` or `Float` correctly rounded from the number's text; out of range (to
    /// infinity, or to zero from non-zero digits) is not representable. Strings match the
    /// non-conforming float strategy.
    func unwrapFloat<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: JSONValue, as type: T.Type, path: CodablePath, key: (any CodingKey)?
    ) throws -> T {
        switch value {
        case .number(let number):
            switch number.storage {
            case .int(let int):
                return T(int)
            case .double(let double):
                return T(double)
            case .text(let text):
                if let result = T(text), result.isFinite, result != 0 || CodableNumbers.isTrueZero(text) { return result }
                throw notRepresentable(text, T.self, path: path, key: key)
            }
        case .string(let string):
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) = options.nonConformingFloatDecodingStrategy {
                if string.hasSameCodeUnits(as: positiveInfinity) { return T.infinity }
                if string.hasSameCodeUnits(as: negativeInfinity) { return -T.infinity }
                if string.hasSameCodeUnits(as: nan) { return T.nan }
            }
            throw typeMismatch(T.self, value, at: path.keys(appending: key))
        default:
            try checkNotNull(value, T.self, path: path, key: key)
            throw typeMismatch(T.self, value, at: path.keys(appending: key))
        }
    }

    // MARK: - Foundation types

    private func unwrapDate(_ value: JSONValue, path: CodablePath, key: (any CodingKey)?, decoderPath: CodablePath) throws -> Date {
        try checkNotNull(value, Date.self, path: path, key: key)
        switch options.dateDecodingStrategy {
        case .deferredToDate:
            return try Date(from: CodableValueDecoder(value: value, path: path.appending(key), state: self))
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try unwrapFloat(value, as: Double.self, path: path, key: key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try unwrapFloat(value, as: Double.self, path: path, key: key) / 1000.0)
        case .iso8601:
            let string = try unwrapString(value, path: path, key: key)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                // Foundation reports this at the asking decoder's path, without the key.
                let description = "Expected date string to be ISO8601-formatted."
                failure = (path.keys(appending: key), description)
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoderPath.keys, debugDescription: description))
            }
            return date
        case .formatted(let formatter):
            let string = try unwrapString(value, path: path, key: key)
            guard let date = formatter.date(from: string) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys(appending: key), debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        case .custom(let closure):
            return try closure(CodableValueDecoder(value: value, path: path.appending(key), state: self))
        }
    }

    private func unwrapData(_ value: JSONValue, path: CodablePath, key: (any CodingKey)?) throws -> Data {
        try checkNotNull(value, Data.self, path: path, key: key)
        switch options.dataDecodingStrategy {
        case .deferredToData:
            return try Data(from: CodableValueDecoder(value: value, path: path.appending(key), state: self))
        case .base64:
            guard case .string(let string) = value else {
                throw typeMismatch(String.self, value, at: path.keys(appending: key))
            }
            guard let data = Data(base64Encoded: string) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys(appending: key), debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .custom(let closure):
            return try closure(CodableValueDecoder(value: value, path: path.appending(key), state: self))
        }
    }

    private func unwrapURL(_ value: JSONValue, path: CodablePath, key: (any CodingKey)?) throws -> URL {
        try checkNotNull(value, URL.self, path: path, key: key)
        let string = try unwrapString(value, path: path, key: key)
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path.keys(appending: key), debugDescription: "Invalid URL string."))
        }
        return url
    }

    private func unwrapDecimal(_ value: JSONValue, path: CodablePath, key: (any CodingKey)?) throws -> Decimal {
        try checkNotNull(value, Decimal.self, path: path, key: key)
        guard case .number(let number) = value else {
            throw DecodingError.typeMismatch(Decimal.self, DecodingError.Context(codingPath: path.keys(appending: key), debugDescription: ""))
        }
        let text = number.text
        guard let decimal = Decimal(string: text) else { throw notRepresentable(text, Decimal.self, path: path, key: key) }
        return decimal
    }

    /// A `[String: V]` read with its keys as written (Foundation exempts such dictionaries
    /// from the key decoding strategy).
    private func unwrapDictionary(_ value: JSONValue, as type: any CodableStringDictionary.Type, path: CodablePath, key: (any CodingKey)?) throws -> Any {
        try checkNotNull(value, [String: Any].self, path: path, key: key)
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                DecodingError.Context(
                    codingPath: path.keys(appending: key),
                    debugDescription: "Expected to decode \([String: Any].self) but found \(value.codableTypeDescription) instead."))
        }
        let dictionaryPath = path.appending(key)
        return try type.decodeElements(of: object, state: self, path: dictionaryPath)
    }
}

/// `[String: V]` where `V: Decodable`, recognised at run time.
protocol CodableStringDictionary {
    static func decodeElements(of object: JSONObject, state: CodableDecodingState, path: CodablePath) throws -> Any
}

extension Dictionary: CodableStringDictionary where Key == String, Value: Decodable {
    static func decodeElements(of object: JSONObject, state: CodableDecodingState, path: CodablePath) throws -> Any {
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        for (key, value) in object where result[key] == nil {
            result[key] = try state.unwrap(value, as: Value.self, path: path, key: CodableKey(stringValue: key))
        }
        return result
    }
}

extension JSONValue {
    /// How Foundation's decoder names a value's type in its messages.
    var codableTypeDescription: String {
        switch self {
        case .array: "an array"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .object: "a dictionary"
        case .null: "null"
        }
    }
}

/// Number conversions where Foundation's decoder has its own rules.
enum CodableNumbers {
    /// `true` when a number that read as zero really is zero (rather than an underflow),
    /// decided as Foundation decides it: a non-zero digit before the exponent marker means
    /// an underflow. Foundation scans four bytes at a time and the last one to three bytes
    /// backwards, so a digit of the exponent in that tail can count (`0.000e5` is an
    /// underflow to Foundation); that is reproduced here, since results must match.
    static func isTrueZero(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func check(_ b: UInt8) -> Bool? {
            switch b {
            case UInt8(ascii: "1")...UInt8(ascii: "9"): return false
            case UInt8(ascii: "e"), UInt8(ascii: "E"): return true
            default: return nil
            }
        }
        var start = 0
        while bytes.count - start >= 4 {
            for i in start..<start + 4 {
                if let result = check(bytes[i]) { return result }
            }
            start += 4
        }
        for i in stride(from: bytes.count - 1, through: start, by: -1) {
            if let result = check(bytes[i]) { return result }
        }
        return true
    }

    /// An integer from the number's decimal digits and exponent, as Foundation converts
    /// a `Decimal` (digits past the point are dropped, toward zero); nil when the digits
    /// exceed 64 bits or the result does not fit `T`.
    static func integerThroughDecimal<T: FixedWidthInteger>(_ text: String, as type: T.Type) -> T? {
        var negative = false
        var mantissa: UInt64 = 0
        var exponent = 0
        var seenPoint = false
        var seenDigit = false
        var iterator = text.utf8.makeIterator()
        var byte = iterator.next()
        if byte == UInt8(ascii: "-") {
            negative = true
            byte = iterator.next()
        }
        while let b = byte, b == UInt8(ascii: ".") || (b >= 0x30 && b <= 0x39) {
            if b == UInt8(ascii: ".") {
                seenPoint = true
            } else {
                if b != 0x30 || seenDigit {
                    seenDigit = true
                    let (m1, o1) = mantissa.multipliedReportingOverflow(by: 10)
                    let (m2, o2) = m1.addingReportingOverflow(UInt64(b - 0x30))
                    if o1 || o2 { return nil }
                    mantissa = m2
                }
                if seenPoint { exponent -= 1 }
            }
            byte = iterator.next()
        }
        if let b = byte, b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
            var rest = ""
            while let next = iterator.next() { rest.unicodeScalars.append(Unicode.Scalar(next)) }
            guard let value = Int(rest), value.magnitude < 1_000 else { return nil }
            exponent += value
        }
        if exponent < 0 {
            for _ in 0 ..< -exponent { mantissa /= 10 }
        } else {
            for _ in 0..<exponent {
                let (m, overflow) = mantissa.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                mantissa = m
            }
        }
        if negative {
            guard T.isSigned, let magnitude = T(exactly: mantissa) else { return nil }
            return 0 - magnitude
        }
        return T(exactly: mantissa)
    }
}
