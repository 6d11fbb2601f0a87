import Foundation

/// A value being encoded: scalars as they will be written, containers as shared boxes
/// that containers keep filling after they are inserted (as Foundation's futures).
enum CodableEncodedValue {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case float(Float)
    /// Number text written as is (`Decimal`).
    case numberText(String)
    case string(String)
    case array(CodableEncodedArray)
    case object(CodableEncodedObject)
    /// What a `superEncoder()` encodes, resolved when written (an empty object if nothing).
    case deferred(CodableValueEncoder)
}

final class CodableEncodedArray {
    var values: [CodableEncodedValue] = []
}

/// Members in encoding order; encoding a key again replaces its value (Foundation's
/// dictionary semantics, keys compared as Swift strings).
final class CodableEncodedObject {
    private(set) var keys: [String] = []
    private(set) var values: [CodableEncodedValue] = []
    private var index: [String: Int]?

    func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in keys.indices where keys[i] == key { return i }
        return nil
    }

    func set(_ value: CodableEncodedValue, for key: String) {
        if let i = position(of: key) {
            values[i] = value
            return
        }
        keys.append(key)
        values.append(value)
        if index != nil {
            index![key] = keys.count - 1
        } else if keys.count > 16 {
            var map: [String: Int] = [:]
            for (i, k) in keys.enumerated() { map[k] = i }
            index = map
        }
    }

    func value(for key: String) -> CodableEncodedValue? { position(of: key).map { values[$0] } }
}

/// What one `TrellisJSONEncoder.encode` call shares: strategies and `userInfo`.
final class CodableEncodingState {
    let options: TrellisJSONEncoder.Options
    let userInfo: [CodingUserInfoKey: Any]
    let convertsKeys: Bool

    init(options: TrellisJSONEncoder.Options) {
        self.options = options
        var info: [CodingUserInfoKey: Any] = [:]
        for (key, value) in options.userInfo { info[key] = value }
        userInfo = info
        if case .useDefaultKeys = options.keyEncodingStrategy { convertsKeys = false } else { convertsKeys = true }
    }

    /// The JSON key for `key` in a container at `path`.
    @inline(__always)
    func jsonKey(_ key: some CodingKey, path: CodablePath) -> String {
        switch options.keyEncodingStrategy {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return SnakeCaseKeys.toSnakeCase(key.stringValue)
        case .custom(let convert): return convert(path.keys(appending: key)).stringValue
        }
    }

    func float<T: BinaryFloatingPoint>(_ value: T, path: CodablePath, key: (any CodingKey)?) throws -> CodableEncodedValue {
        if value.isFinite {
            if let double = value as? Double { return .double(double) }
            return .float(value as! Float)
        }
        if case .convertToString(let positiveInfinity, let negativeInfinity, let nan) = options.nonConformingFloatEncodingStrategy {
            return .string(value.isNaN ? nan : value > 0 ? positiveInfinity : negativeInfinity)
        }
        throw EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: path.keys(appending: key), debugDescription: "Unable to encode \(T.self).\(value) directly in JSON."))
    }

    /// `value` encoded, nil when it encoded nothing.
    func box<T: Encodable>(_ value: T, path: CodablePath, key: (any CodingKey)?) throws -> CodableEncodedValue? {
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .int(Int64(value as! Int)) }
        if T.self == Double.self { return try float(value as! Double, path: path, key: key) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == Int64.self { return .int(value as! Int64) }
        if T.self == Date.self { return try boxDate(value as! Date, path: path, key: key) }
        if T.self == Data.self { return try boxData(value as! Data, path: path, key: key) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return .numberText((value as! Decimal).description) }
        if convertsKeys, let dictionary = value as? any CodableKeyedDictionary {
            return try dictionary.encodedMembers(state: self, path: path.appending(key))
        }
        let encoder = CodableValueEncoder(path: path.appending(key), state: self)
        try value.encode(to: encoder)
        return encoder.value
    }

    /// `value` encoded, an empty object when it encoded nothing (Foundation's rule for
    /// values inside containers).
    @inline(__always)
    func boxNested<T: Encodable>(_ value: T, path: CodablePath, key: (any CodingKey)?) throws -> CodableEncodedValue {
        try box(value, path: path, key: key) ?? .object(CodableEncodedObject())
    }

    private func boxDate(_ date: Date, path: CodablePath, key: (any CodingKey)?) throws -> CodableEncodedValue? {
        switch options.dateEncodingStrategy {
        case .deferredToDate:
            let encoder = CodableValueEncoder(path: path.appending(key), state: self)
            try date.encode(to: encoder)
            return encoder.value
        case .secondsSince1970:
            return .double(date.timeIntervalSince1970)
        case .millisecondsSince1970:
            return .double(1000.0 * date.timeIntervalSince1970)
        case .iso8601:
            return .string(Date.ISO8601FormatStyle().format(date))
        case .formatted(let formatter):
            return .string(formatter.string(from: date))
        case .custom(let closure):
            let encoder = CodableValueEncoder(path: path.appending(key), state: self)
            try closure(date, encoder)
            return encoder.value ?? .object(CodableEncodedObject())
        }
    }

    private func boxData(_ data: Data, path: CodablePath, key: (any CodingKey)?) throws -> CodableEncodedValue? {
        switch options.dataEncodingStrategy {
        case .deferredToData:
            let encoder = CodableValueEncoder(path: path.appending(key), state: self)
            try data.encode(to: encoder)
            return encoder.value
        case .base64:
            return .string(data.base64EncodedString())
        case .custom(let closure):
            let encoder = CodableValueEncoder(path: path.appending(key), state: self)
            try closure(data, encoder)
            return encoder.value ?? .object(CodableEncodedObject())
        }
    }
}

/// A dictionary whose keys Foundation's encoder writes as they are, whatever the key
/// encoding strategy.
protocol CodableKeyedDictionary {
    func encodedMembers(state: CodableEncodingState, path: CodablePath) throws -> CodableEncodedValue
}

extension Dictionary: CodableKeyedDictionary where Key: CodingKeyRepresentable, Value: Encodable {
    func encodedMembers(state: CodableEncodingState, path: CodablePath) throws -> CodableEncodedValue {
        let object = CodableEncodedObject()
        for (key, value) in self {
            let codingKey = key.codingKey
            object.set(try state.boxNested(value, path: path, key: CodableKey(stringValue: codingKey.stringValue)), for: codingKey.stringValue)
        }
        return .object(object)
    }
}

/// The `Encoder` handed to `encode(to:)`, and its own single value container.
final class CodableValueEncoder: Encoder, SingleValueEncodingContainer {
    let path: CodablePath
    let state: CodableEncodingState
    var value: CodableEncodedValue?

    init(path: CodablePath, state: CodableEncodingState) {
        self.path = path
        self.state = state
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let object) = value {
            return KeyedEncodingContainer(CodableKeyedEncodingContainer<Key>(object: object, path: path, state: state))
        }
        let object = CodableEncodedObject()
        value = .object(object)
        return KeyedEncodingContainer(CodableKeyedEncodingContainer<Key>(object: object, path: path, state: state))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let array) = value {
            return CodableUnkeyedEncodingContainer(array: array, path: path, state: state)
        }
        let array = CodableEncodedArray()
        value = .array(array)
        return CodableUnkeyedEncodingContainer(array: array, path: path, state: state)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: - Single value

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .bool(value) }
    func encode(_ value: String) throws { self.value = .string(value) }
    func encode(_ value: Double) throws { self.value = try state.float(value, path: path, key: nil) }
    func encode(_ value: Float) throws { self.value = try state.float(value, path: path, key: nil) }
    func encode(_ value: Int) throws { self.value = .int(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .int(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .int(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .int(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .int(value) }
    func encode(_ value: UInt) throws { self.value = .uint(UInt64(value)) }
    func encode(_ value: UInt8) throws { self.value = .uint(UInt64(value)) }
    func encode(_ value: UInt16) throws { self.value = .uint(UInt64(value)) }
    func encode(_ value: UInt32) throws { self.value = .uint(UInt64(value)) }
    func encode(_ value: UInt64) throws { self.value = .uint(value) }
    func encode<T: Encodable>(_ value: T) throws { self.value = try state.box(value, path: path, key: nil) }
}

struct CodableKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: CodableEncodedObject
    let path: CodablePath
    let state: CodableEncodingState

    var codingPath: [any CodingKey] { path.keys }

    @inline(__always)
    private func set(_ value: CodableEncodedValue, _ key: Key) { object.set(value, for: state.jsonKey(key, path: path)) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try state.float(value, path: path, key: key), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try state.float(value, path: path, key: key), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.uint(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { set(try state.boxNested(value, path: path, key: key), key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let name = state.jsonKey(key, path: path)
        let nested: CodableEncodedObject
        if case .object(let existing)? = object.value(for: name) {
            nested = existing
        } else {
            nested = CodableEncodedObject()
            object.set(.object(nested), for: name)
        }
        return KeyedEncodingContainer(CodableKeyedEncodingContainer<NestedKey>(object: nested, path: path.appending(key), state: state))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = state.jsonKey(key, path: path)
        let nested: CodableEncodedArray
        if case .array(let existing)? = object.value(for: name) {
            nested = existing
        } else {
            nested = CodableEncodedArray()
            object.set(.array(nested), for: name)
        }
        return CodableUnkeyedEncodingContainer(array: nested, path: path.appending(key), state: state)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(key: CodableKey.super) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: key) }

    private func superEncoder(key: some CodingKey) -> any Encoder {
        let encoder = CodableValueEncoder(path: path.appending(key), state: state)
        object.set(.deferred(encoder), for: state.jsonKey(key, path: path))
        return encoder
    }
}

struct CodableUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let array: CodableEncodedArray
    let path: CodablePath
    let state: CodableEncodingState

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { array.values.count }

    private var indexKey: CodableKey { CodableKey(index: array.values.count) }

    mutating func encodeNil() throws { array.values.append(.null) }
    mutating func encode(_ value: Bool) throws { array.values.append(.bool(value)) }
    mutating func encode(_ value: String) throws { array.values.append(.string(value)) }
    mutating func encode(_ value: Double) throws { array.values.append(try state.float(value, path: path, key: indexKey)) }
    mutating func encode(_ value: Float) throws { array.values.append(try state.float(value, path: path, key: indexKey)) }
    mutating func encode(_ value: Int) throws { array.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { array.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { array.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { array.values.append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { array.values.append(.int(value)) }
    mutating func encode(_ value: UInt) throws { array.values.append(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { array.values.append(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { array.values.append(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { array.values.append(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { array.values.append(.uint(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { array.values.append(try state.boxNested(value, path: path, key: indexKey)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = CodableEncodedObject()
        let nestedPath = path.appending(index: array.values.count)
        array.values.append(.object(nested))
        return KeyedEncodingContainer(CodableKeyedEncodingContainer<NestedKey>(object: nested, path: nestedPath, state: state))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = CodableEncodedArray()
        let nestedPath = path.appending(index: array.values.count)
        array.values.append(.array(nested))
        return CodableUnkeyedEncodingContainer(array: nested, path: nestedPath, state: state)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = CodableValueEncoder(path: path.appending(index: array.values.count), state: state)
        array.values.append(.deferred(encoder))
        return encoder
    }
}
