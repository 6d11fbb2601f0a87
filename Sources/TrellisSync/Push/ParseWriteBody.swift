import Foundation
import Trellis

/// The JSON body of a Parse write: absolute values only (never `Increment`, `Add` or any
/// operation that is unsafe to repeat), read from the object's stored values when it is
/// sent (https://docs.parseplatform.org/rest/guide/#data-types):
///
/// - an attribute mapped to a one-key JSON key path (`name`) → that key; a `date` as
///   `{"__type": "Date", "iso": "2024-01-01T00:00:00.000Z"}`, `binary` as `{"__type": "Bytes",
///   "base64": …}`, the rest as its JSON export form (``JSONCoercion/json(from:as:)``); a
///   cleared value as `{"__op": "Delete"}` (Parse's only way to remove a key, and idempotent);
/// - a to-one relationship → `{"__type": "Pointer", "className": C, "objectId": ID}` with the
///   destination's server identity, or `{"__op": "Delete"}` when cleared;
/// - never sent: the identity (`objectId`, except a client-assigned one in a create), the
///   stamps (`createdAt`, `updatedAt`: the server's), attributes under a nested key path
///   (`location.latitude`: the parent key's attribute carries them), to-many relationships
///   (a Parse Relation is changed with `AddRelation`, which is not an absolute value).
enum ParseWriteBody {
    /// The body for `fields` of `snapshot` (nil `fields`: every mapped property, for a create).
    /// - Parameters:
    ///   - pointer: the Parse class and server identity of a destination (nil: it has none).
    ///   - omit: relationship names left out (a create that breaks a cycle).
    static func make(
        _ snapshot: ObjectSnapshot, entity: ResolvedEntity, target: PushTarget, fields: [String]?,
        includeObjectId: Bool, omit: Set<String> = [],
        pointer: (ObjectID) -> (className: String, objectId: String)?
    ) -> JSONObject {
        var body = JSONObject()
        let wanted = fields.map(Set.init)
        if includeObjectId, let id = snapshot.attributes[target.objectIdIndex] {
            body.append(key: "objectId", value: JSONCoercion.json(from: id, as: entity.attributes[target.objectIdIndex].type))
        }
        for (index, keyPath) in entity.attributeMappings {
            guard keyPath.components.count == 1, !target.isServerField(index) else { continue }
            let attribute = entity.attributes[index]
            if let wanted, !wanted.contains(attribute.name) { continue }
            let value = snapshot.attributes[index]
            if fields == nil, value == nil { continue }
            body.append(key: keyPath.description, value: value.map { encode($0, attribute.type) } ?? ["__op": "Delete"])
        }
        for (index, keyPath) in entity.relationshipMappings {
            let relationship = entity.relationships[index]
            guard keyPath.components.count == 1, !relationship.isToMany, !omit.contains(relationship.name) else { continue }
            if let wanted, !wanted.contains(relationship.name) { continue }
            if let destination = snapshot.relationships[index].first, let resolved = pointer(destination) {
                body.append(
                    key: keyPath.description,
                    value: [
                        "__type": "Pointer", "className": .string(resolved.className),
                        "objectId": .string(resolved.objectId),
                    ])
            } else if fields != nil {
                body.append(key: keyPath.description, value: ["__op": "Delete"])
            }
        }
        return body
    }

    static func encode(_ value: AttributeValue, _ type: AttributeType) -> JSONValue {
        switch value {
        case .date(let date): return ["__type": "Date", "iso": .string(RFC3339.exactString(from: date))]
        case .binary(let data): return ["__type": "Bytes", "base64": .string(data.base64EncodedString())]
        default: return JSONCoercion.json(from: value, as: type)
        }
    }

    /// The to-one relationships of `entity` a body carries as Pointers (mapped to one key), by index.
    static func pointerIndexes(_ entity: ResolvedEntity) -> [Int] {
        entity.relationshipMappings.compactMap { index, keyPath in
            keyPath.components.count == 1 && !entity.relationships[index].isToMany ? index : nil
        }
    }
}
