/// A record a ``JSONMap`` can read by property name: a stored object
/// (`ManagedObject`), a snapshot, or any dictionary-like value.
///
/// Implement ``jsonMapNode(forKey:)``; the map walks key paths one component at a time
/// (`owner.name` asks the record for `owner`, then the destination for `name`; `items.0`
/// indexes a to-many relationship).
public protocol JSONMapRecord {
    /// The value of the property `key`: nil when the record has no such property (the
    /// map reports it as missing), ``JSONMapNode/null`` when it has the property but no
    /// value.
    ///
    /// - Throws: an error reading the property (a store error faulting in a
    ///   relationship's destinations); it propagates unchanged out of `map.from`.
    func jsonMapNode(forKey key: String) throws -> JSONMapNode?

    /// The property names, in a stable order (used by ``JSONMap/root`` to render the
    /// record as a JSON object).
    var jsonMapKeys: [String] { get }
}

extension JSONMapRecord {
    /// The record as a JSON object of its keys: attributes in their export form;
    /// relationships as nested objects at depth 0 only (left out deeper).
    func jsonMapObject(depth: Int) throws -> JSONValue {
        var object = JSONObject(minimumCapacity: jsonMapKeys.count)
        for key in jsonMapKeys {
            let node = try jsonMapNode(forKey: key) ?? .null
            switch node {
            case .record, .records:
                if depth == 0 { object[key] = try node.jsonValue(depth: depth + 1) }
            default:
                object[key] = try node.jsonValue(depth: depth + 1)
            }
        }
        return .object(object)
    }
}
