import Foundation
import Trellis

/// Where one entity's local changes go: the resource whose `push` section covers the entity
/// (the entity or one of its parent entities), its Parse class, and the attributes holding the
/// server's identity and stamps.
struct PushTarget {
    /// The resource with the `push` section.
    let resource: ResourceConfiguration
    let configuration: PushConfiguration
    /// The Parse class: the last component of the resource's path (`classes/Hero` → `Hero`).
    let className: String
    /// The single identity attribute: the `objectId`.
    let objectIdIndex: Int
    /// The attributes mapped to `createdAt` and `updatedAt` (the stamp), if any.
    let createdAtIndex: Int?
    let updatedAtIndex: Int?

    /// The attribute of `createKey: lookupField:ATTRIBUTE`.
    var lookupIndex: Int?

    /// The targets of `source`'s resources with a `push` section, by entity name (each
    /// entity's sub-entities too), for `model`.
    /// - Throws: ``SyncError`` `.invalidValue` (located at the resource) for a push section of
    ///   an API without the Parse dialect (its sending is not built), an entity without exactly
    ///   one identity attribute (the `objectId`), or a `lookupField` the entity lacks.
    static func targets(of source: SyncSource, model: ObjectModel) throws -> [String: PushTarget] {
        var targets: [String: PushTarget] = [:]
        for resource in source.resources {
            guard let push = resource.push, let entityName = resource.entity else { continue }
            guard source.client.dialect == .parse else {
                throw SyncError(
                    .invalidValue, message: "pushing is built for the parse dialect only; this resource's API has none",
                    resource: resource.name)
            }
            guard let entity = model.entity(named: entityName) else {
                throw SyncError(.invalidValue, message: "the model has no entity \(entityName)", resource: resource.name)
            }
            guard entity.identityAttributeIndexes.count == 1 else {
                throw SyncError(
                    .invalidValue,
                    message: "a pushed Parse entity has one identity attribute, its objectId (\(entityName) has "
                        + "\(entity.identityAttributeIndexes.count))", resource: resource.name, entity: entityName)
            }
            var target = PushTarget(
                resource: resource, configuration: push,
                className: resource.path.split(separator: "/").last.map(String.init) ?? entityName,
                objectIdIndex: entity.identityAttributeIndexes[0],
                createdAtIndex: mapped(entity, "createdAt"), updatedAtIndex: mapped(entity, "updatedAt"))
            if case .lookupField(let name) = push.createKey {
                guard let index = entity.attributeIndex(of: name) else {
                    throw SyncError(
                        .invalidValue, message: "createKey lookupField:\(name): \(entityName) has no attribute \(name)",
                        resource: resource.name, entity: entityName)
                }
                target.lookupIndex = index
            }
            for name in entity.kindNames where targets[name] == nil {
                targets[name] = target
            }
        }
        return targets
    }

    /// The attribute whose JSON key path is `key`.
    static func mapped(_ entity: ResolvedEntity, _ key: String) -> Int? {
        entity.attributeMappings.first { $0.keyPath.description == key }?.index
    }

    /// The key the create's JSON body has no place for: the identity and the stamps.
    func isServerField(_ index: Int) -> Bool {
        index == objectIdIndex || index == createdAtIndex || index == updatedAtIndex
    }
}
