import Foundation
import Trellis

/// Where one entity's local changes go: the resource whose `push` section covers the entity
/// (the entity or one of its parent entities), its Parse class (or, for an API without a
/// dialect, its routes), and the attributes holding the server's identity and stamps.
struct PushTarget {
    /// Parse's routes and batches; else the push section's `create`/`update`/`delete` routes,
    /// one operation per request.
    let isParse: Bool
    /// The resource with the `push` section.
    let resource: ResourceConfiguration
    let configuration: PushConfiguration
    /// The Parse class: the last component of the resource's path (`classes/Hero` → `Hero`).
    let className: String
    /// The single identity attribute: the `objectId`.
    let objectIdIndex: Int
    /// The attributes mapped to `createdAt` and `updatedAt` (the stamp: the push section's
    /// `stamp` attribute when it names one, an ETag for an API without a dialect), if any.
    let createdAtIndex: Int?
    let updatedAtIndex: Int?
    /// The JSON keys of the identity and the stamp attributes (one-component key paths), for
    /// reading an answer's body.
    var identityKey: String?
    var stampKey: String?

    /// The attribute of `createKey: lookupField:ATTRIBUTE`.
    var lookupIndex: Int?

    /// The targets of `source`'s resources with a `push` section, by entity name (each
    /// entity's sub-entities too), for `model`.
    /// - Throws: ``SyncError`` `.invalidValue` (located at the resource) for an entity without
    ///   exactly one identity attribute (the `objectId`, or the REST id), a `lookupField` the
    ///   entity lacks or on an API without the Parse dialect (its lookup is Parse's `$in` query),
    ///   or a `stamp` the entity lacks.
    static func targets(of source: SyncSource, model: ObjectModel) throws -> [String: PushTarget] {
        var targets: [String: PushTarget] = [:]
        for resource in source.resources {
            guard let push = resource.push, let entityName = resource.entity else { continue }
            let isParse = source.client.dialect == .parse
            if !isParse, case .lookupField = push.createKey {
                throw SyncError(
                    .invalidValue,
                    message: "createKey lookupField is looked up with Parse's $in query; an API without a dialect takes clientId, requestId or none",
                    resource: resource.name, entity: entityName)
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
            var stampIndex = mapped(entity, "updatedAt")
            if let name = push.stamp {
                guard let index = entity.attributeIndex(of: name) else {
                    throw SyncError(
                        .invalidValue, message: "stamp \(name): \(entityName) has no attribute \(name)", resource: resource.name, entity: entityName)
                }
                stampIndex = index
            }
            var target = PushTarget(
                isParse: isParse, resource: resource, configuration: push,
                className: resource.path.split(separator: "/").last.map(String.init) ?? entityName,
                objectIdIndex: entity.identityAttributeIndexes[0],
                createdAtIndex: isParse ? mapped(entity, "createdAt") : nil, updatedAtIndex: stampIndex)
            target.identityKey = key(entity, target.objectIdIndex)
            target.stampKey = stampIndex.flatMap { key(entity, $0) }
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

    /// The one-component JSON key of the attribute at `index`, if it has one.
    static func key(_ entity: ResolvedEntity, _ index: Int) -> String? {
        entity.attributeMappings.first { $0.index == index && $0.keyPath.components.count == 1 }?.keyPath.description
    }

    /// The route of `operation` (an API without a dialect), nil when the push section gives none.
    func route(_ operation: OutboxEntry.Operation) -> PushConfiguration.Route? {
        switch operation {
        case .create: return configuration.create
        case .update: return configuration.update
        case .delete: return configuration.delete
        }
    }

    /// The path of one object (an API without a dialect): the `update` route's, else the
    /// `delete` route's, `{id}` replaced by `id` (percent-encoded); nil without either route.
    func itemPath(_ id: String) -> String? {
        guard let template = (configuration.update ?? configuration.delete)?.path else { return nil }
        let encoded = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id
        return template.replacingOccurrences(of: "{id}", with: encoded)
    }

    /// The key the create's JSON body has no place for: the identity and the stamps.
    func isServerField(_ index: Int) -> Bool {
        index == objectIdIndex || index == createdAtIndex || index == updatedAtIndex
    }
}
