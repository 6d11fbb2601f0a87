import Foundation
import TrellisTestSupport

@testable import Trellis

/// A stored graph as text that does not depend on object IDs, so two stores filled in a
/// different order compare equal exactly when they hold the same objects and links.
///
/// One line per object of an entity with identity attributes, sorted:
/// `E1(id: 3) {a4: "x", a5: nil} r0=[E0(id: 1)] r1=[{a7: 2 r3=[^]}]`. Such objects are
/// named by their identity values; an object without identity attributes is written in
/// full where it is linked (`{…}`), and `^` where it links back to one it is written in.
/// Unordered to-manys are sorted; mapped ordered ones keep their order. Objects without identity
/// attributes that nothing links to are left out (they cannot be exported).
enum GraphCanon {
    static func text(of store: TestStore) throws -> String {
        let model = store.store.model
        var snapshots: [ObjectID: ObjectSnapshot] = [:]
        var named: [ObjectSnapshot] = []
        try store.store.read { session in
            for entity in model.resolvedEntities where !entity.isAbstract {
                for snapshot in try session.fetch(entity: entity.name, matching: nil) where snapshot.id.entityName == entity.name {
                    snapshots[snapshot.id] = snapshot
                    if !entity.identityAttributeIndexes.isEmpty { named.append(snapshot) }
                }
            }
        }
        let canon = Canon(model: model, snapshots: snapshots)
        return named.map { canon.line($0) }.sorted().joined(separator: "\n")
    }

    private struct Canon {
        let model: ObjectModel
        let snapshots: [ObjectID: ObjectSnapshot]

        func entity(_ id: ObjectID) -> ResolvedEntity { model.entity(named: id.entityName)! }

        func line(_ snapshot: ObjectSnapshot) -> String {
            name(snapshot) + (snapshot.isPlaceholder ? " placeholder " : " ") + body(snapshot, path: [snapshot.id])
        }

        func name(_ snapshot: ObjectSnapshot) -> String {
            let entity = entity(snapshot.id)
            let identity = entity.identityAttributeIndexes.map { i in
                "\(entity.attributes[i].name): \(snapshot.attributes[i].map(GraphCanon.value) ?? "nil")"
            }
            return "\(entity.name)(\(identity.joined(separator: ", ")))"
        }

        func body(_ snapshot: ObjectSnapshot, path: [ObjectID]) -> String {
            let entity = entity(snapshot.id)
            let attributes = entity.attributes.indices.filter { !entity.identityAttributeIndexes.contains($0) }.map { i in
                "\(entity.attributes[i].name): \(snapshot.attributes[i].map(GraphCanon.value) ?? "nil")"
            }
            let relationships = entity.relationships.indices.map { slot in
                let relationship = entity.relationships[slot]
                var items = snapshot.relationships[slot].map { reference($0, path: path) }
                // An ordered to-many keeps its order, unless no key path maps it: then its order
                // is the order in which the inverse's imports met it, which no JSON holds.
                let ordered = relationship.isOrdered && entity.relationshipMappings.contains { $0.index == slot }
                if relationship.isToMany && !ordered { items.sort() }
                return "\(relationship.name)=[\(items.joined(separator: ", "))]"
            }
            return "{" + attributes.joined(separator: ", ") + "} " + relationships.joined(separator: " ")
        }

        func reference(_ id: ObjectID, path: [ObjectID]) -> String {
            guard let snapshot = snapshots[id] else { return "missing \(id)" }
            if !entity(id).identityAttributeIndexes.isEmpty { return name(snapshot) }
            if path.contains(id) { return "^" }
            return entity(id).name + body(snapshot, path: path + [id])
        }
    }

    /// A value as text that tells every two values apart (unlike `description`, which
    /// shortens binary and JSON values).
    static func value(_ value: AttributeValue) -> String {
        switch value {
        case .string(let s): return "\"" + s.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\""
        case .binary(let data): return "base64:" + data.base64EncodedString()
        case .json(let json): return "json:" + ((try? JSONWriter.string(for: json)) ?? "?")
        case .date(let date): return "date:\(date.timeIntervalSinceReferenceDate)"
        case .double(let d): return "double:\(d)"
        case .decimal(let d): return "decimal:\(d)"
        default: return value.description
        }
    }
}
