/// An enum with raw values (`String` or an integer type) read and written by its raw
/// value: ``JSONMappable`` (reading) and ``JSONWritableValue`` (writing) together, for
/// enums that go both ways. Each has a default implementation for raw-value types, so no
/// code beyond the conformance is needed, also with `JSONMappable` alone, the way
/// Mappable's users write it:
///
///     enum Continent: String, JSONMappable { case asia, europe }     // read
///     enum Status: String, JSONMappableEnum { case active, banned }  // read and written
///     enum Level: Int, JSONMappableEnum { case low = 1, high = 2 }
///
///     status = try map.from("status")   // "active" → .active
///     level = try map.from("level")     // 2 or "2" → .high
///     try map.write(status, to: "status")
///
/// The raw value is read with its own type's rules (so `"2"` reads as `Int` 2); a raw
/// value that no case has is `.invalidValue` at the property's path, naming the enum.
public typealias JSONMappableEnum = JSONMappable & JSONWritableValue

extension JSONMappable where Self: RawRepresentable, RawValue: JSONMapValue {
    /// Reads the raw value at `map`, then finds the case.
    ///
    /// - Throws: ``MappingError`` `.invalidValue` when no case has the raw value; the
    ///   raw value type's errors otherwise (naming this type as the one expected).
    public init(map: JSONMap) throws {
        let raw: RawValue
        do {
            raw = try RawValue.mapValue(from: map)
        } catch let error as MappingError {
            var error = error
            error.expected = JSONMapTypeName.of(Self.self)
            throw error
        }
        guard let value = Self(rawValue: raw) else {
            throw map.failure(.invalidValue, expected: Self.self, message: "no case has the raw value \(raw)")
        }
        self = value
    }
}

extension JSONWritableValue where Self: RawRepresentable, RawValue: JSONWritableValue {
    /// Writes the raw value.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        try rawValue.jsonValue(in: map)
    }
}
