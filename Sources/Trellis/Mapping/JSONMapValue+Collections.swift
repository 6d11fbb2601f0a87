extension JSONMap {
    /// The number of elements of this map's array (a JSON array or a to-many relationship).
    ///
    /// - Throws: ``MappingError`` `.typeMismatch` naming `expected` when this map is not an array.
    @usableFromInline
    func elementCount(expected: Any.Type) throws -> Int {
        if source == nil, case .array(let elements) = json { return elements.count }
        if case .records(let records)? = source?.node { return records.count }
        throw failure(.typeMismatch, expected: expected)
    }

    /// The map of element `index` (located at `[index]`), after ``elementCount(expected:)``.
    ///
    /// - Throws: ``MappingError`` `.null` for a `null` element (unless `expected` is `JSONValue`).
    @usableFromInline
    func element(at index: Int, expected: Any.Type) throws -> JSONMap {
        if source == nil, case .array(let elements) = json, elements.indices.contains(index) {
            let element = elements[index]
            if element.isNull, !JSONMap.acceptsNull(expected) {
                throw MappingError(
                    code: .null, path: path.appending(index: index), expected: JSONMapTypeName.of(expected),
                    found: .null, message: "null element")
            }
            return child(json: element, at: .index(index))
        }
        if case .records(let records)? = source?.node, records.indices.contains(index) {
            return child(.record(records[index]), at: .index(index))
        }
        throw failure(.typeMismatch, expected: expected)
    }

    /// Reads every element of this map's array with `convert`.
    func elements<Element>(_ convert: (JSONMap) throws -> Element) throws -> [Element] {
        let count = try elementCount(expected: [Element].self)
        var result: [Element] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let element = try element(at: i, expected: Element.self)
            do {
                result.append(try convert(element))
            } catch {
                throw element.located(error, expected: Element.self)
            }
        }
        return result
    }
}

extension Array: JSONMapValue where Element: JSONMapValue {
    /// A JSON array (or a to-many relationship) whose every element reads as `Element`,
    /// in order. A failing element throws at its position (`$.tags[2]`), also inside an
    /// optional array's lenient rule (the whole array is then nil); a `null` element is
    /// `.null`. Anything other than an array is `.typeMismatch`.
    @inlinable
    public static func mapValue(from map: JSONMap) throws -> [Element] {
        let count = try map.elementCount(expected: [Element].self)
        var result: [Element] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let element = try map.element(at: i, expected: Element.self)
            do {
                result.append(try Element.mapValue(from: element))
            } catch {
                throw element.located(error, expected: Element.self)
            }
        }
        return result
    }
}

extension Set: JSONMapValue where Element: JSONMapValue {
    /// A JSON array read as `[Element]`, duplicates collapsed.
    public static func mapValue(from map: JSONMap) throws -> Set<Element> {
        Set(try map.elements { try Element.mapValue(from: $0) })
    }
}

extension Dictionary: JSONMapValue where Key == String, Value: JSONMapValue {
    /// A JSON object (or a record) whose every value reads as `Value`; a failing value
    /// throws at its key (`$.scores.ada`); a `null` value is `.null`.
    public static func mapValue(from map: JSONMap) throws -> [String: Value] {
        let members: [(String, JSONMapNode)]
        switch map.node {
        case .json(.object(let object)):
            members = object.members.map { ($0.key, $0.value.isNull ? .null : .json($0.value)) }
        case .record(let record):
            members = try record.jsonMapKeys.map { ($0, try record.jsonMapNode(forKey: $0) ?? .null) }
        default:
            throw map.failure(.typeMismatch, expected: [String: Value].self)
        }
        var result: [String: Value] = Dictionary(minimumCapacity: members.count)
        for (key, node) in members {
            let valueMap = map.child(node, at: .key(key))
            if case .null = node, !JSONMap.acceptsNull(Value.self) {
                throw valueMap.nullError(expected: Value.self, message: "null value")
            }
            do {
                result[key] = try Value.mapValue(from: valueMap)
            } catch {
                throw valueMap.located(error, expected: Value.self)
            }
        }
        return result
    }
}
