extension JSONMap {
    /// Reads every element of this map's array with `convert`; a `null` element is `.null`.
    func elements<Element>(_ convert: (JSONMap) throws -> Element) throws -> [Element] {
        switch node {
        case .json(.array(let elements)), .attribute(.json(.array(let elements))):
            var result: [Element] = []
            result.reserveCapacity(elements.count)
            for i in elements.indices {
                let element = elements[i]
                if element.isNull, Element.self != JSONValue.self {
                    throw MappingError(code: .null, path: path.appending(index: i),
                                       expected: JSONMapTypeName.of(Element.self), found: .null, message: "null element")
                }
                let elementMap = child(element.isNull ? .null : .json(element), at: .index(i))
                do {
                    result.append(try convert(elementMap))
                } catch {
                    throw elementMap.located(error, expected: Element.self)
                }
            }
            return result
        case .records(let records):
            var result: [Element] = []
            result.reserveCapacity(records.count)
            for (i, record) in records.enumerated() {
                let elementMap = child(.record(record), at: .index(i))
                do {
                    result.append(try convert(elementMap))
                } catch {
                    throw elementMap.located(error, expected: Element.self)
                }
            }
            return result
        default:
            throw failure(.typeMismatch, expected: [Element].self)
        }
    }
}

extension Array: JSONMapValue where Element: JSONMapValue {
    /// A JSON array (or a to-many relationship) whose every element reads as `Element`,
    /// in order. A failing element throws at its position (`$.tags[2]`), also inside an
    /// optional array's lenient rule (the whole array is then nil); a `null` element is
    /// `.null`. Anything other than an array is `.typeMismatch`.
    public static func mapValue(from map: JSONMap) throws -> [Element] {
        try map.elements { try Element.mapValue(from: $0) }
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
        case .json(.object(let object)), .attribute(.json(.object(let object))):
            members = object.members.map { ($0.key, $0.value.isNull ? .null : .json($0.value)) }
        case .record(let record):
            members = try record.jsonMapKeys.map { ($0, try record.jsonMapNode(forKey: $0) ?? .null) }
        default:
            throw map.failure(.typeMismatch, expected: [String: Value].self)
        }
        var result: [String: Value] = Dictionary(minimumCapacity: members.count)
        for (key, node) in members {
            let valueMap = map.child(node, at: .key(key))
            if case .null = node, Value.self != JSONValue.self {
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
