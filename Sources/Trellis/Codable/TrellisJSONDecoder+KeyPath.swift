import Foundation

extension TrellisJSONDecoder {
    /// A value of `type` decoded from the value at `keyPath` in the UTF-8 JSON text `data`
    /// (`statuses`, `response.docs`; an all-digit component also indexes an array, as in
    /// ``JSONKeyPath``), so a wrapper type is not needed:
    ///
    ///     let statuses = try decoder.decode([Status].self, from: data, at: "statuses")
    ///
    /// The whole text is checked as ``decode(_:from:)-(_,Data)`` checks it. Errors are the
    /// ones a wrapper type would get from `JSONDecoder`: their `codingPath` starts with the
    /// key path's keys (`[statuses, Index 0, id]`); a missing key on the way is
    /// `keyNotFound` at the keys before it, a value on the way that is not an object (or,
    /// for an index, not an array) is `typeMismatch`. The key path's keys are matched as
    /// written: the key decoding strategy applies below it.
    ///
    /// - Throws: `DecodingError` (its description ends with line, column and JSON path),
    ///   or an error thrown by an `init(from:)`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, at keyPath: JSONKeyPath) throws -> T {
        try data.withUnsafeBytes { buffer in try decode(type, fromBytes: buffer, at: keyPath) }
    }

    /// ``decode(_:from:at:)-(_,Data,_)`` on UTF-8 bytes.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>, at keyPath: JSONKeyPath) throws -> T {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in
            try decode(type, fromBytes: UnsafeRawBufferPointer(buffer), at: keyPath)
        }) {
            return result
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBytes { buffer in try decode(type, fromBytes: buffer, at: keyPath) }
    }

    /// The value `component` names in `value` and the path to it, or the error a wrapper
    /// type's container would throw there.
    static func step(
        into value: JSONValue, _ component: JSONKeyPath.Component, path: CodablePath, state: CodableDecodingState
    ) throws -> (JSONValue, CodablePath) {
        switch value {
        case .object(let object):
            let key = CodableKey(stringValue: component.key)
            guard let member = object[component.key] else {
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(
                        codingPath: path.keys, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return (member, path.appending(key))
        case .array(let elements):
            guard let index = component.index else {
                throw state.typeMismatch([String: Any].self, value, at: path.keys)
            }
            guard index < elements.count else {
                throw DecodingError.valueNotFound(
                    JSONValue.self,
                    DecodingError.Context(
                        codingPath: path.appending(index: index).keys,
                        debugDescription: "Unkeyed container is at end (the array has \(elements.count) elements, the key path asks for element \(index))."))
            }
            return (elements[index], path.appending(index: index))
        default:
            throw state.typeMismatch(component.index == nil ? [String: Any].self : [Any].self, value, at: path.keys)
        }
    }
}
