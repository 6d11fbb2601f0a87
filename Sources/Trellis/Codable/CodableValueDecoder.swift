import Foundation

/// The `Decoder` handed to `init(from:)`: one parsed value and its path. Also its own
/// single value container, as Foundation's is.
struct CodableValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let path: CodablePath
    let state: CodableDecodingState

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw Self.containerError(
                [String: Any].self, value, path: path, null: "Cannot get keyed decoding container -- found null value instead", state: state)
        }
        return KeyedDecodingContainer(CodableKeyedDecodingContainer<Key>(object: object, path: path, decoderPath: path, state: state))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else {
            throw Self.containerError([Any].self, value, path: path, null: "Cannot get unkeyed decoding container -- found null value instead", state: state)
        }
        return CodableUnkeyedDecodingContainer(array: array, path: path, decoderPath: path, state: state)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    static func containerError(_ type: Any.Type, _ value: JSONValue, path: CodablePath, null: String, state: CodableDecodingState) -> DecodingError {
        if case .null = value {
            return DecodingError.valueNotFound(type, DecodingError.Context(codingPath: path.keys, debugDescription: null))
        }
        return state.typeMismatch(type, value, at: path.keys)
    }

    // MARK: - Single value

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try state.unwrapBool(value, path: path, key: nil) }
    func decode(_ type: String.Type) throws -> String { try state.unwrapString(value, path: path, key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try state.unwrapFloat(value, as: type, path: path, key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try state.unwrapFloat(value, as: type, path: path, key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try state.unwrapInteger(value, as: type, path: path, key: nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try state.unwrap(value, as: type, path: path, key: nil) }
}

/// A keyed container over a parsed object. With the default key strategy the object's
/// own keys are searched in place (no dictionary is built, no key is copied); a key
/// strategy builds the converted dictionary Foundation builds (first key wins).
struct CodableKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private enum Members {
        case object(JSONObject)
        case converted([String: JSONValue])
    }

    private let members: Members
    private let path: CodablePath
    /// The path of the decoder these containers came from (Foundation reports a bad
    /// ISO 8601 date there).
    private let decoderPath: CodablePath
    private let state: CodableDecodingState

    init(object: JSONObject, path: CodablePath, decoderPath: CodablePath, state: CodableDecodingState) {
        self.path = path
        self.decoderPath = decoderPath
        self.state = state
        switch state.options.keyDecodingStrategy {
        case .useDefaultKeys:
            members = .object(object)
        case .convertFromSnakeCase:
            var converted: [String: JSONValue] = [:]
            converted.reserveCapacity(object.count)
            for (key, value) in object {
                let name = SnakeCaseKeys.fromSnakeCase(key)
                if converted[name] == nil { converted[name] = value }
            }
            members = .converted(converted)
        case .custom(let convert):
            let base = path.keys
            var converted: [String: JSONValue] = [:]
            converted.reserveCapacity(object.count)
            for (key, value) in object {
                let name = convert(base + [CodableKey(stringValue: key)]).stringValue
                if converted[name] == nil { converted[name] = value }
            }
            members = .converted(converted)
        }
    }

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        switch members {
        case .object(let object): return object.keys.compactMap { Key(stringValue: $0) }
        case .converted(let dictionary): return dictionary.keys.compactMap { Key(stringValue: $0) }
        }
    }

    func contains(_ key: Key) -> Bool { valueIfPresent(key) != nil }

    @inline(__always)
    private func valueIfPresent(_ key: some CodingKey) -> JSONValue? {
        switch members {
        case .object(let object):
            let name = key.stringValue
            if let value = object[name] { return value }
            // Foundation matches keys as Swift strings (canonical equivalence): "é" written
            // precomposed finds a key written decomposed.
            guard !name.utf8.allSatisfy({ $0 < 0x80 }) || object.keys.contains(where: { !$0.utf8.allSatisfy { $0 < 0x80 } }) else { return nil }
            for i in 0..<object.count where object.key(at: i) == name { return object.value(at: i) }
            return nil
        case .converted(let dictionary):
            return dictionary[key.stringValue]
        }
    }

    @inline(__always)
    private func value(_ key: some CodingKey) throws -> JSONValue {
        guard let value = valueIfPresent(key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: path.keys, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try state.unwrapBool(try value(key), path: path, key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try state.unwrapString(try value(key), path: path, key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try state.unwrapFloat(try value(key), as: type, path: path, key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try state.unwrapFloat(try value(key), as: type, path: path, key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try state.unwrapInteger(try value(key), as: type, path: path, key: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.unwrap(try value(key), as: type, path: path, key: key, decoderPath: decoderPath)
    }

    // Present-and-not-null, else nil (Foundation's decodeIfPresent).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = valueIfPresent(key), !value.isNull else { return nil }
        return try state.unwrapBool(value, path: path, key: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = valueIfPresent(key), !value.isNull else { return nil }
        return try state.unwrapString(value, path: path, key: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try floatIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try floatIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(type, key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = valueIfPresent(key), !value.isNull else { return nil }
        return try state.unwrap(value, as: type, path: path, key: key, decoderPath: decoderPath)
    }

    private func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let value = valueIfPresent(key), !value.isNull else { return nil }
        return try state.unwrapInteger(value, as: type, path: path, key: key)
    }

    private func floatIfPresent<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let value = valueIfPresent(key), !value.isNull else { return nil }
        return try state.unwrapFloat(value, as: type, path: path, key: key)
    }

    // MARK: - Nested containers

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try value(key)
        let nestedPath = path.appending(key)
        guard case .object(let object) = value else {
            throw CodableValueDecoder.containerError(
                [String: Any].self, value, path: nestedPath, null: "Cannot get keyed decoding container -- found null value instead", state: state)
        }
        return KeyedDecodingContainer(CodableKeyedDecodingContainer<NestedKey>(object: object, path: nestedPath, decoderPath: decoderPath, state: state))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try value(key)
        let nestedPath = path.appending(key)
        guard case .array(let array) = value else {
            throw CodableValueDecoder.containerError(
                [Any].self, value, path: nestedPath, null: "Cannot get unkeyed decoding container -- found null value instead", state: state)
        }
        return CodableUnkeyedDecodingContainer(array: array, path: nestedPath, decoderPath: decoderPath, state: state)
    }

    func superDecoder() throws -> any Decoder { superDecoder(key: CodableKey.super) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key: key) }

    private func superDecoder(key: some CodingKey) -> any Decoder {
        CodableValueDecoder(value: valueIfPresent(key) ?? .null, path: path.appending(key), state: state)
    }
}

/// An unkeyed container over a parsed array.
struct CodableUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    private let array: [JSONValue]
    private let path: CodablePath
    private let decoderPath: CodablePath
    private let state: CodableDecodingState
    private(set) var currentIndex = 0

    init(array: [JSONValue], path: CodablePath, decoderPath: CodablePath, state: CodableDecodingState) {
        self.array = array
        self.path = path
        self.decoderPath = decoderPath
        self.state = state
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    private var indexKey: CodableKey { CodableKey(index: currentIndex) }

    private func next(_ type: Any.Type, message: String = "Unkeyed container is at end.") throws -> JSONValue {
        guard currentIndex < array.count else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: path.keys(appending: CodableKey(index: currentIndex)), debugDescription: message))
        }
        return array[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        if case .null = try next(Never.self) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try state.unwrapBool(try next(type), path: path, key: indexKey)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try state.unwrapString(try next(type), path: path, key: indexKey)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double { try float(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try float(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let result = try state.unwrap(try next(type), as: type, path: path, key: indexKey, decoderPath: decoderPath)
        currentIndex += 1
        return result
    }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let result = try state.unwrapInteger(try next(type), as: type, path: path, key: indexKey)
        currentIndex += 1
        return result
    }

    private mutating func float<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        let result = try state.unwrapFloat(try next(type), as: type, path: path, key: indexKey)
        currentIndex += 1
        return result
    }

    // decodeIfPresent: Foundation's rule — nil for null *and* past the end, and the index
    // moves on in both cases.
    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try ifPresent { try $0.unwrapBool($1, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try ifPresent { try $0.unwrapString($1, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try ifPresent { try $0.unwrapFloat($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try ifPresent { try $0.unwrapFloat($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try ifPresent { try $0.unwrapInteger($1, as: type, path: $2, key: $3) } }
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        var result: T?
        if currentIndex < array.count, !array[currentIndex].isNull {
            result = try state.unwrap(array[currentIndex], as: type, path: path, key: indexKey, decoderPath: decoderPath)
        }
        currentIndex += 1
        return result
    }

    private mutating func ifPresent<T>(_ body: (CodableDecodingState, JSONValue, CodablePath, CodableKey) throws -> T) throws -> T? {
        var result: T?
        if currentIndex < array.count, !array[currentIndex].isNull {
            result = try body(state, array[currentIndex], path, indexKey)
        }
        currentIndex += 1
        return result
    }

    // MARK: - Nested containers

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next(KeyedDecodingContainer<NestedKey>.self)
        let nestedPath = path.appending(index: currentIndex)
        guard case .object(let object) = value else {
            throw CodableValueDecoder.containerError(
                [String: Any].self, value, path: nestedPath, null: "Cannot get keyed decoding container -- found null value instead", state: state)
        }
        currentIndex += 1
        return KeyedDecodingContainer(CodableKeyedDecodingContainer<NestedKey>(object: object, path: nestedPath, decoderPath: decoderPath, state: state))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next(UnkeyedDecodingContainer.self, message: "Cannot get nested unkeyed container -- unkeyed container is at end.")
        let nestedPath = path.appending(index: currentIndex)
        guard case .array(let array) = value else {
            throw CodableValueDecoder.containerError(
                [Any].self, value, path: nestedPath, null: "Cannot get unkeyed decoding container -- found null value instead", state: state)
        }
        currentIndex += 1
        return CodableUnkeyedDecodingContainer(array: array, path: nestedPath, decoderPath: decoderPath, state: state)
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next((any Decoder).self, message: "Cannot get superDecoder() -- unkeyed container is at end.")
        let decoder = CodableValueDecoder(value: value, path: path.appending(index: currentIndex), state: state)
        currentIndex += 1
        return decoder
    }
}
