import Foundation
import Trellis

/// The JSON body of a write to an API without a dialect (the push section's `create`,
/// `update` routes): absolute values only, read from the object's stored values when it is sent.
///
/// - an attribute mapped to a one-key JSON key path (`title`) → that key, in its JSON export
///   form (``JSONCoercion/json(from:as:)``: a `date` as RFC 3339 text, `binary` as base64); a
///   cleared value as `null` (JSON Merge Patch, RFC 7396: `null` removes the member);
/// - a to-one relationship → the destination's server identity, or `null` when cleared;
/// - never sent: the identity (except a `clientId` create's), the stamp (the server's ETag or
///   `updatedAt`), attributes under a nested key path, to-many relationships.
///
/// An update sends the changed fields only: its route should be a `PATCH` (or a `PUT` to an
/// API that merges), since a `PUT` that replaces the resource would clear the fields not sent.
enum RESTWriteBody {
    /// The body for `fields` of `snapshot` (nil `fields`: every mapped property holding a value, for a create).
    /// - Parameter identity: the server identity of a destination (nil: it has none).
    static func make(
        _ snapshot: ObjectSnapshot, entity: ResolvedEntity, target: PushTarget, fields: [String]?,
        includeIdentity: Bool, identity: (ObjectID) -> String?
    ) -> JSONObject {
        var body = JSONObject()
        let wanted = fields.map(Set.init)
        for (index, keyPath) in entity.attributeMappings {
            guard keyPath.components.count == 1 else { continue }
            if target.isServerField(index), !(includeIdentity && index == target.objectIdIndex) { continue }
            let attribute = entity.attributes[index]
            if let wanted, !wanted.contains(attribute.name), index != target.objectIdIndex { continue }
            let value = snapshot.attributes[index]
            if fields == nil, value == nil { continue }
            body.append(key: keyPath.description, value: value.map { JSONCoercion.json(from: $0, as: attribute.type) } ?? .null)
        }
        for index in ParseWriteBody.pointerIndexes(entity) {
            let relationship = entity.relationships[index]
            guard let keyPath = entity.relationshipMappings.first(where: { $0.index == index })?.keyPath else { continue }
            if let wanted, !wanted.contains(relationship.name) { continue }
            if let destination = snapshot.relationships[index].first, let id = identity(destination) {
                body.append(key: keyPath.description, value: .string(id))
            } else if fields != nil {
                body.append(key: keyPath.description, value: .null)
            }
        }
        return body
    }
}
