import Foundation
import Testing

/// Reads payloads and models with Foundation's `JSONSerialization`, independently of
/// Trellis's reader, and computes what an import of a payload through a model must store:
/// the distinct objects of each entity (by their identity values) and, for each, the values
/// every occurrence in the payload had. The inference tests compare the store and the
/// export with it.
struct PayloadWalk {
    /// One entity of a Trellis JSON model file, as the walk needs it.
    struct Entity {
        var name: String
        var identity: [String]
        /// name → (key path components, type, transformer)
        var attributes: [(name: String, keyPath: [String], type: String, transformer: String?)]
        var relationships: [(name: String, keyPath: [String], destination: String, toMany: Bool)]

        func keyPath(ofAttribute name: String) -> [String]? { attributes.first { $0.name == name }?.keyPath }
    }

    /// One occurrence of an object: each mapped attribute's value (`NSNull` for null;
    /// absent when the key was), each mapped relationship's destination identities (`[]`
    /// for `null`; absent when the key was).
    struct Occurrence {
        var attributes: [String: Any] = [:]
        var relationships: [String: [String]] = [:]
    }

    let entities: [String: Entity]
    /// entity → identity → occurrences, in payload order.
    private(set) var objects: [String: [String: [Occurrence]]] = [:]
    /// entity → identities known only as bare identifiers.
    private(set) var referenced: [String: Set<String>] = [:]

    /// The entities of the model file at `url` (a Trellis JSON model file).
    init(model url: URL) throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var entities: [String: Entity] = [:]
        for e in try #require(json["entities"] as? [[String: Any]]) {
            let name = try #require(e["name"] as? String)
            var entity = Entity(name: name, identity: e["identityAttributes"] as? [String] ?? [], attributes: [], relationships: [])
            for a in e["attributes"] as? [[String: Any]] ?? [] {
                guard let path = a["jsonKeyPath"] as? String else { continue }
                entity.attributes.append(
                    (
                        try #require(a["name"] as? String), PayloadWalk.components(path),
                        try #require(a["type"] as? String), a["transformer"] as? String
                    ))
            }
            for r in e["relationships"] as? [[String: Any]] ?? [] {
                guard let path = r["jsonKeyPath"] as? String else { continue }
                entity.relationships.append(
                    (
                        try #require(r["name"] as? String), PayloadWalk.components(path),
                        try #require(r["destination"] as? String), r["toMany"] as? Bool ?? false
                    ))
            }
            entities[name] = entity
        }
        self.entities = entities
    }

    /// `a\.b.c` → ["a.b", "c"].
    static func components(_ keyPath: String) -> [String] {
        var components: [String] = []
        var current = ""
        var escaping = false
        for c in keyPath {
            if escaping {
                current.append(c)
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else if c == "." {
                components.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        components.append(current)
        return components
    }

    /// The value at `path` in `object`: nil when missing (a key absent, or crossing a non-object).
    static func value(at path: [String], in object: Any) -> Any? {
        var current: Any = object
        for key in path {
            guard let dictionary = current as? [String: Any], let next = dictionary[key] else { return nil }
            current = next
        }
        return current
    }

    /// The identity text of `object` for `entity`: its identity attributes' values, joined.
    func identity(of object: [String: Any], _ entity: Entity) -> String? {
        var parts: [String] = []
        for name in entity.identity {
            guard let path = entity.keyPath(ofAttribute: name), let value = PayloadWalk.value(at: path, in: object),
                !(value is NSNull)
            else { return nil }
            parts.append(PayloadWalk.identityText(value))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "\u{1}")
    }

    /// `1699` and `"1699"` give the same text (identities are normalised to the attribute type).
    static func identityText(_ value: Any) -> String {
        if let number = value as? NSNumber { return number.stringValue }
        if let string = value as? String { return string }
        return String(describing: value)
    }

    /// Walks the elements of a collection of `entity`.
    mutating func walk(_ elements: [Any], entity: String) throws {
        for element in elements { _ = try visit(element, try #require(entities[entity])) }
    }

    /// Records an object (or a bare identifier) of `entity`; returns its identity.
    private mutating func visit(_ value: Any, _ entity: Entity) throws -> String? {
        guard let object = value as? [String: Any] else {
            if value is NSNull { return nil }
            let id = PayloadWalk.identityText(value)
            referenced[entity.name, default: []].insert(id)
            return id
        }
        guard let id = identity(of: object, entity) else { return nil }
        var occurrence = Occurrence()
        for a in entity.attributes {
            if let v = PayloadWalk.value(at: a.keyPath, in: object) { occurrence.attributes[a.name] = v }
        }
        for r in entity.relationships {
            guard let v = PayloadWalk.value(at: r.keyPath, in: object) else { continue }
            if v is NSNull {
                occurrence.relationships[r.name] = []  // cleared
                continue
            }
            let destination = try #require(entities[r.destination])
            let items = r.toMany ? (v as? [Any] ?? []) : [v]
            var ids: [String] = []
            for item in items { if let id = try visit(item, destination) { ids.append(id) } }
            occurrence.relationships[r.name] = ids
        }
        objects[entity.name, default: [:]][id, default: []].append(occurrence)
        return id
    }

    /// Distinct objects of `entity` met in full or as identifiers.
    func count(_ entity: String) -> Int {
        Set(objects[entity]?.keys.map { $0 } ?? []).union(referenced[entity] ?? []).count
    }
}
