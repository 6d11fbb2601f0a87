import Foundation

/// A type ``JSONMap/from(_:)-(String)`` can read: a scalar (`Int`, `String`, `Date`, …),
/// a collection of readable values, a ``JSONMappable`` model, or a ``JSONMappableEnum``.
///
/// Conform your own leaf types by reading ``JSONMap/node`` or ``JSONMap/root``:
///
///     struct Cents: JSONMapValue {
///         var value: Int64
///         static func mapValue(from map: JSONMap) throws -> Cents {
///             guard case .string(let text) = map.root, let value = Int64(text.dropFirst()) else {
///                 throw map.error(.invalidValue, expected: "Cents", message: "not like \"$123\"")
///             }
///             return Cents(value: value)
///         }
///     }
public protocol JSONMapValue {
    /// Reads a value of this type from the value `map` points at.
    ///
    /// The map's ``JSONMap/node`` is never `null` here: missing and `null` values are
    /// handled by the caller (an error for non-optional properties, nil for optional ones).
    ///
    /// - Throws: ``MappingError`` located at `map` (use ``JSONMap/error(_:at:expected:message:)``);
    ///   errors of other types pass through the typed layer unchanged (and are not
    ///   turned into nil for optional properties).
    static func mapValue(from map: JSONMap) throws -> Self
}

/// A model type read from a JSON object (or a stored object) by a hand-written
/// `init(map:)`, as Mappable's `Mappable`, Mantle's `MTLJSONSerializing` and
/// ObjectMapper's `ImmutableMappable` do.
///
///     struct User: JSONMappable {
///         let id: String
///         let summary: String?
///         init(map: JSONMap) throws {
///             id = try map.from("id")
///             summary = try map.from("summary")
///         }
///     }
///     let user = try User(jsonString: #"{"id": "7"}"#)
///     let users = try [User](jsonData: data)
///
/// Classes mark the initialiser `required`; a subclass reads its own keys and calls
/// `try super.init(map: map)`. Enums with associated values switch on a tag read with
/// ``JSONMap/from(_:)-(String)`` and build the matching case.
public protocol JSONMappable: JSONMapValue {
    /// Reads the model from `map`.
    ///
    /// - Throws: ``MappingError`` naming the full path of the first value that is
    ///   missing, `null` or unconvertible for a non-optional property. Errors of your own
    ///   types (validation) pass through unchanged, also out of optional properties.
    init(map: JSONMap) throws
}

extension JSONMappable {
    /// Calls ``init(map:)``.
    ///
    /// - Throws: ``MappingError`` `.depthLimitExceeded` when `map` is nested deeper than
    ///   ``JSONMap/Options/maximumDepth`` (a recursive model read from a very deep
    ///   document), before recursing further.
    @inlinable
    public static func mapValue(from map: JSONMap) throws -> Self {
        try map.checkDepth(expected: Self.self)
        return try Self(map: map)
    }
}

// MARK: - Entry points

extension JSONMapValue {
    /// Reads a value of this type from a JSON value (the document root, `$`).
    ///
    ///     let user = try User(json: ["id": "7"])
    ///     let ids = try [Int](json: [1, "2", 3])   // [1, 2, 3]
    ///
    /// - Throws: ``MappingError`` with the path of the failing value; `.null` when `json`
    ///   is `null`.
    @inlinable
    public init(json: JSONValue, options: JSONMap.Options = JSONMap.Options()) throws {
        let map = try JSONMap(root: json, options: options, expected: Self.self)
        self = try Self.mapValue(from: map)
    }

    /// Reads a value of this type from a record (a stored object): property names are
    /// the keys, relationships are nested maps.
    public init(record: any JSONMapRecord, options: JSONMap.Options = JSONMap.Options()) throws {
        self = try Self.mapValue(from: JSONMap(record: record, options: options))
    }
}

extension JSONMap {
    /// Throws `.depthLimitExceeded` when this map is nested deeper than the options allow.
    @usableFromInline
    func checkDepth(expected: Any.Type) throws {
        guard location.depth > options.maximumDepth else { return }
        throw MappingError(
            code: .depthLimitExceeded, path: path, expected: JSONMapTypeName.of(expected),
            message: "models nest deeper than \(options.maximumDepth) levels")
    }

    /// The root map of a document read as `expected`.
    ///
    /// - Throws: ``MappingError`` `.null` when `json` is `null` (unless `expected` is `JSONValue`).
    @usableFromInline
    init(root json: JSONValue, options: Options, expected: Any.Type) throws {
        if json.isNull, !JSONMap.acceptsNull(expected) {
            throw MappingError(
                code: .null, path: .root, expected: JSONMapTypeName.of(expected), found: .null,
                message: "null value")
        }
        self.init(json: json, options: options)
    }
}
