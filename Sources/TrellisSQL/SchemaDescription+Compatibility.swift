import Trellis

/// Comparing a stored schema with a model's: which changes are additive (migrated
/// automatically) and which are refused, with the message both SQL stores give.
extension SchemaDescription {
    /// Throws `.incompatibleSchema` naming every difference that is not additive, in model
    /// order, separated by `; ` (`… entity Power: the entity was removed; entity Character,
    /// property powers: the relationship was removed`). The message says the store's schema
    /// "cannot be migrated to the model" for a store that migrates (`readOnly` false), and
    /// "does not fit the model" for one that only reads the file.
    package static func checkCompatibility(stored: SchemaDescription, new: SchemaDescription, readOnly: Bool) throws(StoreError) {
        let differences = incompatibilities(stored: stored, new: new)
        guard !differences.isEmpty else { return }
        throw StoreError(
            .incompatibleSchema, message: incompatibilityPreamble(readOnly: readOnly) + differences.joined(separator: "; "),
            details: "only new entities, attributes and relationships are migrated automatically")
    }

    /// `the store's schema cannot be migrated to the model: ` or `the store's schema does not fit the model: `.
    package static func incompatibilityPreamble(readOnly: Bool) -> String {
        readOnly ? "the store's schema does not fit the model: " : "the store's schema cannot be migrated to the model: "
    }

    /// Every difference between `stored` and `new` that is not additive, as `entity E[, property
    /// P]: what changed`: removed entities first, then each remaining entity's changes.
    package static func incompatibilities(stored: SchemaDescription, new: SchemaDescription) -> [String] {
        var differences: [String] = []
        func refuse(_ entity: String, _ property: String?, _ what: String) {
            differences.append((property.map { "entity \(entity), property \($0)" } ?? "entity \(entity)") + ": " + what)
        }
        for old in stored.entities where new.entity(named: old.name) == nil {
            refuse(old.name, nil, "the entity was removed")
        }
        for old in stored.entities {
            guard let entity = new.entity(named: old.name) else { continue }
            if entity.parent != old.parent {
                refuse(old.name, nil, "the parent entity changed from \(old.parent ?? "none") to \(entity.parent ?? "none")")
            } else if entity.table != old.table {
                refuse(old.name, nil, "the entity moved to another inheritance hierarchy")
            }
            if entity.identity != old.identity {
                refuse(
                    old.name, nil,
                    "the identity attributes changed from [\(old.identity.joined(separator: ", "))] "
                        + "to [\(entity.identity.joined(separator: ", "))]")
            }
            for attribute in old.attributes {
                guard let now = entity.attributes.first(where: { $0.name == attribute.name }) else {
                    refuse(old.name, attribute.name, "the attribute was removed")
                    continue
                }
                if now.type != attribute.type {
                    refuse(old.name, attribute.name, "the attribute type changed from \(attribute.type) to \(now.type)")
                }
            }
            for relationship in old.relationships {
                guard let now = entity.relationships.first(where: { $0.name == relationship.name }) else {
                    refuse(old.name, relationship.name, "the relationship was removed")
                    continue
                }
                if now.destination != relationship.destination {
                    refuse(old.name, relationship.name, "the destination changed from \(relationship.destination) to \(now.destination)")
                } else if now.isToMany != relationship.isToMany || now.isOrdered != relationship.isOrdered {
                    refuse(old.name, relationship.name, "the relationship changed between to-one, to-many and ordered")
                } else if now.storage != relationship.storage {
                    refuse(
                        old.name, relationship.name,
                        "its storage changed from \(relationship.storage.rawValue) to \(now.storage.rawValue) (a changed inverse)")
                }
            }
        }
        return differences
    }
}
