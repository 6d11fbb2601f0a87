import Foundation

// `Decodable` and `Encodable` types as leaf values of a mapped model.
//
// A leaf that is not `JSONMapValue` but is `Decodable` is decoded from its JSON subtree
// directly by a `TrellisJSONDecoder` (``JSONMap/Options/makeCodableDecoder``), and an
// `Encodable` one encoded straight into the tree by a `TrellisJSONEncoder`
// (``JSONWriteMap/Options/makeCodableEncoder``): no text in between. Options that choose
// Foundation's `JSONDecoder`/`JSONEncoder` (``JSONMap/Options/makeDecoder``) go through
// text: the subtree written with `JSONWriter` and decoded, or encoded and read back.
// When a type is both, its `JSONMapValue` conformance wins (these overloads are
// disfavoured).

extension JSONMap {
    /// The value at `keyPath` decoded as a `Decodable` type (one that is not
    /// ``JSONMapValue``), with the usual rules for missing and `null` values; when `T` is
    /// an `Optional` (`let origin: Point?`), the rules for optionals apply.
    ///
    ///     struct Point: Codable { var x, y: Double }
    ///     origin = try map.from("origin")   // {"x": 0, "y": 0}
    ///     anchor = try map.from("anchor")   // Point?: nil when missing, null or unusable
    ///
    /// (One overload serves both: a second one returning `T?` would be ambiguous with
    /// this one for `T == Optional<…>`, which is itself `Decodable`.)
    ///
    /// - Throws: ``MappingError``; a `DecodingError` becomes `.typeMismatch`, `.null`,
    ///   `.missing` or `.invalidValue` at this path plus the decoder's coding path
    ///   (`$.shape.origin.x`), with the `DecodingError` as ``MappingError/underlyingError``.
    @_disfavoredOverload
    public func from<T: Decodable>(_ keyPath: String) throws -> T {
        if let optional = T.self as? any MappingOptional.Type, let none = optional.mappingNone as? T {
            let value = try self.optional(keyPath, verbatim: false) { try $0.decoded(T.self) }
            return value ?? none
        }
        return try required(keyPath, verbatim: false) { try $0.decoded(T.self) }
    }

    /// This map's value decoded with a fresh decoder from ``Options/makeCodableDecoder``
    /// (or, when chosen, ``Options/makeDecoder``).
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        guard let makeFoundationDecoder = options.foundationDecoder else {
            do {
                return try options.makeCodableDecoder().decodeUnlocated(T.self, fromValue: try root)
            } catch {
                throw conversionError(error, expected: T.self)
            }
        }
        let data: Data
        do {
            data = try JSONWriter.data(for: try root)
        } catch {
            throw failure(.invalidValue, expected: T.self, message: String(describing: error))
        }
        do {
            return try makeFoundationDecoder().decode(T.self, from: data)
        } catch {
            throw conversionError(error, expected: T.self)
        }
    }
}

extension JSONWriteMap {
    /// Writes an `Encodable` value (one that is not ``JSONWritableValue``) as the JSON a
    /// `JSONEncoder` from ``Options/makeEncoder`` makes of it.
    ///
    /// - Throws: ``MappingError`` `.invalidValue` at the value's path, with the
    ///   `EncodingError` as ``MappingError/underlyingError``.
    @_disfavoredOverload
    public mutating func write<T: Encodable>(_ value: T, to keyPath: String) throws {
        if let makeEncoder = options.foundationEncoder {
            try write(value, to: keyPath) { value in try JSONWriteMap.encoded(value, encoder: makeEncoder()) }
        } else {
            let makeEncoder = options.makeCodableEncoder
            try write(value, to: keyPath) { value in try makeEncoder().encodeToJSONValue(value) }
        }
    }

    /// Writes an `Encodable` value, or nil per ``Options/nilPolicy``.
    @_disfavoredOverload
    public mutating func write<T: Encodable>(_ value: T?, to keyPath: String) throws {
        guard let value else { return try write(JSONValue?.none, to: keyPath) }
        try write(value, to: keyPath)
    }

    /// `value` encoded to JSON text and read back as a ``JSONValue``.
    static func encoded<T: Encodable>(_ value: T, encoder: JSONEncoder) throws -> JSONValue {
        let data = try encoder.encode(value)
        return try JSONReader.parse(data)
    }
}

/// `Optional`, recognised at run time by the `Decodable` overload.
protocol MappingOptional {
    /// `nil` of this optional type.
    static var mappingNone: Self { get }
}

extension Optional: MappingOptional {
    static var mappingNone: Wrapped? { nil }
}
