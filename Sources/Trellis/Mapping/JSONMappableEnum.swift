/// An enum with raw values (`String` or an integer type) read and written by its raw
/// value, with no code beyond the conformance:
///
///     enum Status: String, JSONMappableEnum { case active, banned }
///     enum Level: Int, JSONMappableEnum { case low = 1, high = 2 }
///
///     status = try map.from("status")   // "active" → .active
///     level = try map.from("level")     // 2 or "2" → .high
///
/// The raw value is read with its own type's rules (so `"2"` reads as `Int` 2); a raw
/// value that no case has is `.invalidValue` at the property's path, naming the enum.
public protocol JSONMappableEnum: RawRepresentable, JSONMapValue, JSONWritableValue
where RawValue: JSONMapValue & JSONWritableValue {}

extension JSONMappableEnum {
    /// Reads the raw value, then finds the case.
    ///
    /// - Throws: ``MappingError`` `.invalidValue` when no case has the raw value; the
    ///   raw value type's errors otherwise.
    public static func mapValue(from map: JSONMap) throws -> Self {
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
        return value
    }

    /// Writes the raw value.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        try rawValue.jsonValue(in: map)
    }
}
