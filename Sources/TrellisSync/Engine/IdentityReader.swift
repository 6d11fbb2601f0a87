import Foundation
import Trellis

/// Reads the identity of an entity's objects from records (by the identity attributes' JSON
/// key paths and value transformers, as the importer does) and from stored snapshots, so
/// that deletions compare what the source has with what the store has.
struct IdentityReader {
    let entity: ResolvedEntity
    private let readers: [(keyPath: JSONKeyPath, type: AttributeType, transformer: JSONValueTransformer?)]

    /// - Throws: ``SyncError`` `.invalidValue` for an entity without identity attributes, or
    ///   one whose identity attribute is not mapped to JSON.
    init(entity: ResolvedEntity, bindings: MappingBindings, resource: String) throws {
        self.entity = entity
        guard !entity.identityAttributeIndexes.isEmpty else {
            throw SyncError(
                .invalidValue, message: "deletions need identity attributes; entity \(entity.name) has none",
                resource: resource, entity: entity.name)
        }
        var readers: [(JSONKeyPath, AttributeType, JSONValueTransformer?)] = []
        for index in entity.identityAttributeIndexes {
            let attribute = entity.attributes[index]
            guard let keyPath = entity.attributeMappings.first(where: { $0.index == index })?.keyPath else {
                throw SyncError(
                    .invalidValue, message: "the identity attribute \(entity.name).\(attribute.name) has no JSON key path",
                    resource: resource, entity: entity.name, attribute: attribute.name)
            }
            var transformer: JSONValueTransformer?
            if let name = attribute.userInfo["JSONTransformerName"] { transformer = try? bindings.transformers.transformer(named: name) }
            readers.append((keyPath, attribute.type, transformer))
        }
        self.readers = readers
    }

    /// The identity of `record`, or nil when a value is missing or does not fit.
    func identity(of record: JSONValue) -> [AttributeValue]? {
        var values: [AttributeValue] = []
        values.reserveCapacity(readers.count)
        for reader in readers {
            guard let json = reader.keyPath.lookup(in: record).value, !json.isNull else { return nil }
            let value: AttributeValue?
            if let transformer = reader.transformer {
                value = try? transformer.transformedValue(json)
            } else {
                value = try? JSONCoercion.value(from: json, as: reader.type)
            }
            guard let value else { return nil }
            values.append(value)
        }
        return values
    }

    /// The identity of a stored object (nil for a placeholder without one).
    func identity(of snapshot: ObjectSnapshot, model: ObjectModel) -> [AttributeValue]? {
        guard let own = model.entity(named: snapshot.id.entityName) else { return nil }
        var values: [AttributeValue] = []
        for index in entity.identityAttributeIndexes {
            let name = entity.attributes[index].name
            guard let i = own.attributeIndex(of: name), let value = snapshot.attributes[i] else { return nil }
            values.append(value)
        }
        return values
    }
}
