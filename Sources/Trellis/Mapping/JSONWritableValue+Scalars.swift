import Foundation

// How the typed layer writes leaf values: the JSON forms of `AttributeType`'s table.

extension JSONWriteMap {
    /// A signed integer as an exact JSON number.
    func integer<I: FixedWidthInteger>(_ value: I) -> JSONValue {
        if let exact = Int64(exactly: value) { return .number(JSONNumber(exact)) }
        // Only UInt64/UInt above Int64.max get here; their decimal text is a JSON number.
        return .number(JSONNumber(text: String(value)) ?? JSONNumber(Int64.max))
    }

    /// A date through a built-in transformer's reverse, errors located here.
    func reversed(_ date: Date, by transformer: JSONValueTransformer) throws -> JSONValue {
        do {
            return try transformer.reverseTransformedValue(.date(date))
        } catch let error as TransformError {
            throw MappingError(
                code: MappingError.Code(rawValue: error.code.rawValue), path: path, expected: "Date",
                message: error.description, underlyingError: error)
        }
    }

    /// `.invalidValue` for a number JSON cannot hold (NaN, ±infinity).
    func nonFinite(_ type: Any.Type, _ description: String) -> MappingError {
        MappingError(
            code: .invalidValue, path: path, expected: JSONMapTypeName.of(type),
            message: "\(description) is not a JSON number (RFC 8259 has no NaN or infinity)")
    }
}

extension Int: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension Int8: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension Int16: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension Int32: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension Int64: JSONWritableValue {
    /// An exact JSON number (never through `Double`).
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension UInt: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension UInt8: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension UInt16: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension UInt32: JSONWritableValue {
    /// An exact JSON number.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension UInt64: JSONWritableValue {
    /// An exact JSON number, above `Int64.max` too.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { map.integer(self) }
}

extension Double: JSONWritableValue {
    /// The shortest text that reads back as the same `Double` (`0.1`, `1e-07`).
    ///
    /// - Throws: ``MappingError`` `.invalidValue` for NaN and ±infinity.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        guard isFinite else { throw map.nonFinite(Double.self, description) }
        return .number(JSONNumber(self))
    }
}

extension Float: JSONWritableValue {
    /// The shortest text that reads back as the same `Float` (`0.1`, not `0.100000001…`).
    ///
    /// - Throws: ``MappingError`` `.invalidValue` for NaN and ±infinity.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        guard isFinite, let number = JSONNumber(text: description) else { throw map.nonFinite(Float.self, description) }
        return .number(number)
    }
}

extension Decimal: JSONWritableValue {
    /// A JSON number with the decimal's digits (`0.1` stays `0.1`).
    ///
    /// - Throws: ``MappingError`` `.invalidValue` for NaN.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        guard let number = JSONNumber(text: description) else { throw map.nonFinite(Decimal.self, description) }
        return .number(number)
    }
}

extension Bool: JSONWritableValue {
    /// `true` or `false`.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .bool(self) }
}

extension String: JSONWritableValue {
    /// A JSON string.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .string(self) }
}

extension Date: JSONWritableValue {
    /// Per ``JSONWriteMap/Options/dateStrategy``: by default an RFC 3339 string in UTC
    /// with milliseconds (`2011-08-21T18:02:52.249Z`, ``RFC3339/string(from:fractionDigits:)``);
    /// epoch numbers as the `epoch-seconds` / `epoch-milliseconds` transformers write them.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        switch map.options.dateStrategy {
        case .rfc3339: return .string(RFC3339.string(from: self))
        case .epochSeconds: return try map.reversed(self, by: .epochSeconds)
        case .epochMilliseconds: return try map.reversed(self, by: .epochMilliseconds)
        case .custom(let write): return try write(self)
        }
    }
}

extension URL: JSONWritableValue {
    /// The URL's `absoluteString`.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .string(absoluteString) }
}

extension UUID: JSONWritableValue {
    /// The lowercase 8-4-4-4-12 string (the exporter's form).
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .string(uuidString.lowercased()) }
}

extension Data: JSONWritableValue {
    /// A base64 string (RFC 4648 §4, with padding).
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { .string(base64EncodedString()) }
}

extension JSONValue: JSONWritableValue {
    /// The value itself.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue { self }
}

// MARK: - Collections

extension Array: JSONWritableValue where Element: JSONWritableValue {
    /// A JSON array of the elements, in order; a failing element throws at `[i]`.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        let parent = map.materialized()
        var elements: [JSONValue] = []
        elements.reserveCapacity(count)
        for (i, element) in enumerated() {
            elements.append(try element.jsonValue(in: parent.child(at: .index(i))))
        }
        return .array(elements)
    }
}

extension Set: JSONWritableValue where Element: JSONWritableValue {
    /// A JSON array of the elements (in the set's iteration order, which is not stable
    /// between runs; write a sorted array when the output must be reproducible).
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        try Array(self).jsonValue(in: map)
    }
}

extension Dictionary: JSONWritableValue where Key == String, Value: JSONWritableValue {
    /// A JSON object with the keys sorted (so the output is reproducible); a failing
    /// value throws at its key.
    public func jsonValue(in map: JSONWriteMap) throws -> JSONValue {
        let parent = map.materialized()
        var object = JSONObject(minimumCapacity: count)
        for key in keys.sorted() {
            guard let value = self[key] else { continue }
            object.append(key: key, value: try value.jsonValue(in: parent.child(at: .key(key))))
        }
        return .object(object)
    }
}

extension JSONWriteMap {
    /// This map with its location materialised (for maps that create many children).
    func materialized() -> JSONWriteMap {
        JSONWriteMap(root: root, location: location.materialized, context: context)
    }
}
