import Foundation

extension TrellisJSONDecoder {
    /// A value of `type` decoded from a `JSONValue` tree, with the decoder's strategies and
    /// Foundation's results, without writing the tree to text first.
    ///
    ///     let hero = try TrellisJSONDecoder().decode(Hero.self, from: value)
    ///
    /// - Throws: `DecodingError` with Foundation's case and `codingPath`; its description
    ///   ends with the failing value's JSON path (`(at $.powers[1].name)`; a tree has no
    ///   line and column). Or an error thrown by an `init(from:)`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try decode(type, fromValue: value, place: nil)
    }

    /// `value` decoded as `T`, errors as the state raises them (no place added).
    func decodeUnlocated<T: Decodable>(_ type: T.Type, fromValue value: JSONValue) throws -> T {
        try CodableDecodingState(options: currentOptions()).unwrap(value, as: T.self, path: .root, key: nil)
    }

    /// `value` decoded as `T`; a failure's description ends with `place` (what the value
    /// is, e.g. `object Hero/12`) and the JSON path of the failing value.
    func decode<T: Decodable>(_ type: T.Type, fromValue value: JSONValue, place: String?) throws -> T {
        let state = CodableDecodingState(options: currentOptions())
        do {
            return try state.unwrap(value, as: T.self, path: .root, key: nil)
        } catch let error as DecodingError {
            guard let context = error.codableContext else { throw error }
            var keys = context.codingPath
            if let failure = state.failure, failure.description == context.debugDescription { keys = failure.path }
            let path = Self.path(along: keys, in: value, state: state)
            let described = DecodingError.Context(
                codingPath: context.codingPath,
                debugDescription: context.debugDescription + " (\(place.map { $0 + ", " } ?? "")at \(path))",
                underlyingError: context.underlyingError)
            throw error.withCodableContext(described)
        }
    }

    /// The JSON path of the value at `keys` in `value` (as far as it exists), object keys
    /// matched through the key decoding strategy.
    static func path(along keys: [any CodingKey], in value: JSONValue, state: CodableDecodingState) -> JSONPath {
        var path = JSONPath.root
        var current = value
        var walked: [any CodingKey] = []
        for key in keys {
            switch current {
            case .array(let elements):
                guard let index = key.intValue, index < elements.count else { return path }
                path = path.appending(index: index)
                current = elements[index]
            case .object(let object):
                guard let member = object.members.first(where: { state.convertedKey($0.key, walked: walked) == key.stringValue }) else {
                    return path
                }
                path = path.appending(key: member.key)
                current = member.value
            default:
                return path
            }
            walked.append(key)
        }
        return path
    }

    /// A decoder for the JSON shape the store's objects take in an export (`trellis export`,
    /// ``ObjectExporter``), and so for ``ObjectContext/fetch(_:as:exportOptions:decoder:)``:
    /// dates from RFC 3339 strings with any fraction of a second (or numbers of seconds
    /// since 1970), binary from padded base64; every other strategy Foundation's default.
    public static func forStoredObjects() -> TrellisJSONDecoder {
        let decoder = TrellisJSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected an RFC 3339 date, found \"\(text)\".")
            }
            return date
        }
        return decoder
    }
}

extension CodableDecodingState {
    /// The coding-key text of JSON key `key` under the keys `walked`, by the key strategy.
    func convertedKey(_ key: String, walked: [any CodingKey]) -> String {
        switch options.keyDecodingStrategy {
        case .useDefaultKeys: return key
        case .convertFromSnakeCase: return SnakeCaseKeys.fromSnakeCase(key)
        case .custom(let convert): return convert(walked + [CodableKey(stringValue: key)]).stringValue
        }
    }
}

extension TrellisJSONEncoder {
    /// `value` as a `JSONValue` tree, with the encoder's strategies (output formatting does
    /// not apply to a tree): what ``encode(_:)`` writes, read back, without the text.
    /// - Throws: as ``encode(_:)``.
    public func encodeToJSONValue<T: Encodable>(_ value: T) throws -> JSONValue {
        let state = CodableEncodingState(options: currentOptions())
        guard let root = try state.box(value, path: .root, key: nil) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return root.jsonValue(sortingKeys: state.options.outputFormatting.contains(.sortedKeys))
    }

    /// An encoder writing the JSON shape the store's importer reads, and so for
    /// ``ObjectContext/importObjects(_:entity:options:encoder:)``: dates as RFC 3339 UTC
    /// strings keeping their fraction of a second (milliseconds, or micro- or nanoseconds
    /// when the date has them), binary as padded base64; every other strategy Foundation's default.
    public static func forStoredObjects() -> TrellisJSONEncoder {
        let encoder = TrellisJSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.exactString(from: date))
        }
        return encoder
    }
}

extension CodableEncodedValue {
    /// The tree `CodableJSONWriter` would write as text (with `.sortedKeys` when
    /// `sortingKeys`: members in the writer's order, by UTF-8 bytes).
    func jsonValue(sortingKeys: Bool) -> JSONValue {
        switch self {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .int(let int): return .number(JSONNumber(int))
        case .uint(let uint):
            return uint <= UInt64(Int64.max) ? .number(JSONNumber(Int64(uint))) : .number(JSONNumber(validatedLiteral: String(uint)))
        case .double(let double): return .number(JSONNumber(validatedLiteral: CodableJSONWriter.floatText(double.description)))
        case .float(let float): return .number(JSONNumber(validatedLiteral: CodableJSONWriter.floatText(float.description)))
        case .numberText(let text): return .number(JSONNumber(validatedLiteral: text))
        case .string(let string): return .string(string)
        case .deferred(let encoder): return (encoder.value ?? .object(CodableEncodedObject())).jsonValue(sortingKeys: sortingKeys)
        case .array(let array): return .array(array.values.map { $0.jsonValue(sortingKeys: sortingKeys) })
        case .object(let object):
            let keys = object.keys
            let order = sortingKeys ? keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) } : Array(keys.indices)
            var result = JSONObject(minimumCapacity: keys.count)
            for i in order { result[keys[i]] = object.values[i].jsonValue(sortingKeys: sortingKeys) }
            return .object(result)
        }
    }
}
