import Foundation

/// A type a ``JSONWriteMap`` can write as one JSON value: scalars, collections of
/// writable values, ``JSONRepresentable`` models, ``JSONMappableEnum``s.
///
/// Conform your own leaf types by returning their JSON form:
///
///     extension Cents: JSONWritableValue {
///         func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .string("$\(value)") }
///     }
public protocol JSONWritableValue {
    /// The JSON form of this value.
    ///
    /// - Parameter map: the write map of the value's position; read its
    ///   ``JSONWriteMap/options`` (date strategy, nil policy) and use it for errors.
    /// - Throws: ``MappingError`` located at `map` (`map.error(_:expected:message:)`).
    func jsonValue(in map: JSONWriteMap) throws -> JSONValue
}

/// A model type written back to JSON by a hand-written `write(to:)` — the reverse of
/// ``JSONMappable``, as Mantle's `JSONDictionaryFromModel:` and ObjectMapper's
/// `mapping(map:)` do.
///
///     extension User: JSONRepresentable {
///         func write(to map: inout JSONWriteMap) throws {
///             try map.write(id, to: "id")
///             try map.write(continent, to: "location.continent")   // creates {"location": {…}}
///             try map.write(published, to: "pub_date", using: .epochSeconds)
///         }
///     }
///     let json = try user.jsonValue()           // {"id": …, "location": {"continent": …}, …}
///     let text = try user.jsonString(pretty: true)
///
/// Keys are written in the order of the `write` calls. Subclasses override
/// `write(to:)` and call `try super.write(to: &map)`.
public protocol JSONRepresentable: JSONWritableValue {
    /// Writes the model's properties into `map` (an object, initially empty).
    ///
    /// - Throws: ``MappingError`` naming the path of a value that cannot be written.
    func write(to map: inout JSONWriteMap) throws
}

extension JSONRepresentable {
    /// A JSON object filled by ``write(to:)``.
    ///
    /// - Throws: ``MappingError`` `.depthLimitExceeded` beyond
    ///   ``JSONWriteMap/Options/maximumDepth`` (a cycle of class instances).
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        var nested = try map.nested(expected: Self.self)
        try write(to: &nested)
        return nested.root
    }
}

// MARK: - Entry points

extension JSONWritableValue {
    /// The value as JSON (a model as an object; `[User]` as an array of objects).
    ///
    /// - Parameter options: nil policy, date strategy, transformers.
    /// - Throws: ``MappingError`` with the path of the value that cannot be written.
    public func jsonValue(options: JSONWriteMap.Options = JSONWriteMap.Options()) throws -> JSONValue {
        try jsonValue(in: JSONWriteMap(options: options))
    }
}
