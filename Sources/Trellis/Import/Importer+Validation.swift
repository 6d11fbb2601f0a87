/// Validation of the objects an import creates, completes or changes, with the JSON path of
/// the element that made them.
///
/// - Attributes: a new or completed object has a value for every required attribute
///   (``checkRequiredAttributes(_:_:)``, when the object is applied).
/// - Relationships, as Core Data validates them: a non-optional to-one has a destination; a
///   to-many has at most `maxCount` destinations (when above 0) and, unless it is optional
///   and empty, at least `minCount` (at least 1 when it is not optional). A placeholder counts
///   as a destination. Checked when the batch's links are all set, just before it is written
///   (``validateRelationships()``), for every full object of a constrained entity that the
///   batch touched; an error names the path of the element that touched the object, its entity
///   and the relationship. Not checked: a to-many that no mapping of its entity sets, on an
///   object the import read (its content is not read by the import), and objects changed only
///   through an inverse (a team a player left).
extension Importer {
    /// Every required attribute of a new or completed `object` has a value.
    /// - Throws: `.missingRequiredValue` at the attribute's key path (when mapped).
    func checkRequiredAttributes(_ object: ManagedObject, _ plan: EntityPlan) throws {
        for (i, attribute) in object.entity.attributes.enumerated() where !attribute.isOptional && object.values[i] == nil {
            let keyPath = plan.attributes.first(where: { $0.index == i })?.keyPath
            throw fail(
                .missingRequiredValue, keyPath, object.entity.name, attribute.name, nil,
                "\(object.entity.name).\(attribute.name) is required" + (keyPath.map { "; the object has no value at '\($0)'" } ?? ""))
        }
    }

    /// Remembers where `object`, of an entity with relationship rules, was touched (the
    /// element and the path within it), for ``validateRelationships()``.
    @inline(__always)
    func noteConstrained(_ object: ManagedObject, _ path: [PathStep]) {
        if relationshipRules[object.info.number] != nil { constrained.append((object, elementIndex, path)) }
    }

    /// Checks the relationship rules on the full objects the batch touched.
    /// - Throws: `.missingRequiredValue` (a required to-one without destination) or
    ///   `.relationshipCount`, located at the element that touched the object.
    func validateRelationships() throws {
        for (object, element, path) in constrained {
            guard let rules = relationshipRules[object.info.number], !object.isPlaceholder, !object.isDeletedFlag,
                object.replacement == nil
            else { continue }
            let readByImport = object.epoch >= importEpoch
            for rule in rules {
                if readByImport, unreadInverses.unread[object.info.number][rule.slot] { continue }
                let count = context.links(of: object, rule.slot).count
                let entity = object.entity.name
                if !rule.isToMany {
                    guard count == 0 else { continue }
                    throw located(element, path) {
                        fail(
                            .missingRequiredValue, rule.keyPath, entity, rule.name, nil,
                            "\(entity).\(rule.name) is required" + (rule.keyPath.map { "; the object has no destination at '\($0)'" } ?? ""))
                    }
                }
                if rule.maxCount > 0, count > rule.maxCount {
                    throw located(element, path) {
                        fail(
                            .relationshipCount, rule.keyPath, entity, rule.name, nil,
                            "\(entity).\(rule.name) has \(count) destinations; at most \(rule.maxCount) allowed (maxCount)")
                    }
                }
                if count < rule.minCount, count > 0 || !rule.isOptional {
                    throw located(element, path) {
                        fail(
                            .relationshipCount, rule.keyPath, entity, rule.name, nil,
                            "\(entity).\(rule.name) has \(count) destination\(count == 1 ? "" : "s"); at least \(rule.minCount) required"
                                + (rule.isOptional ? " (minCount; it may also be empty)" : " (minCount)"))
                    }
                }
            }
        }
    }

    /// `error()` built with the path of element `element` at `path` within it.
    private func located(_ element: Int, _ path: [PathStep], _ error: () -> ImportError) -> ImportError {
        let (savedElement, savedSteps) = (elementIndex, steps)
        defer { (elementIndex, steps) = (savedElement, savedSteps) }
        (elementIndex, steps) = (element, path)
        return error()
    }
}

/// One relationship rule of an entity (``Importer/validateRelationships()``).
struct RelationshipRule {
    let slot: Int
    let name: String
    /// The relationship's JSON key path, when it is mapped (errors point at it).
    let keyPath: JSONKeyPath?
    let isToMany: Bool
    let isOptional: Bool
    /// 0 for none; for a non-optional to-many at least 1.
    let minCount: Int
    /// 0 for none.
    let maxCount: Int

    /// The rules of `info`'s relationships; nil when it has none.
    static func rules(of info: EntityInfo) -> [RelationshipRule]? {
        var rules: [RelationshipRule] = []
        for (slot, r) in info.relationships.enumerated() {
            let d = r.description
            let minCount = d.isToMany && !d.isOptional ? max(1, d.minCount) : d.minCount
            guard (!d.isToMany && !d.isOptional) || (d.isToMany && (minCount > 0 || d.maxCount > 0)) else { continue }
            let keyPath = info.entity.relationshipMappings.first(where: { $0.index == slot })?.keyPath
            rules.append(
                RelationshipRule(
                    slot: slot, name: d.name, keyPath: keyPath, isToMany: d.isToMany, isOptional: d.isOptional,
                    minCount: minCount, maxCount: d.maxCount))
        }
        return rules.isEmpty ? nil : rules
    }
}
