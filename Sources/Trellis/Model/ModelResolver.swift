/// Validates a list of entity declarations and resolves inheritance, identity and
/// JSON mappings into ``ResolvedEntity`` values. Collects every problem before throwing.
struct ModelResolver {
    let entities: [EntityDescription]
    let keyConvention: KeyConvention
    private var problems: [ModelError] = []

    init(entities: [EntityDescription], keyConvention: KeyConvention) {
        self.entities = entities
        self.keyConvention = keyConvention
    }

    func resolve() throws -> [String: ResolvedEntity] {
        var copy = self
        return try copy.run()
    }

    /// Names may hold any character but a control character (U+0000–U+001F, U+007F):
    /// SQLite identifiers end at U+0000, XML 1.0 (Core Data models) cannot hold most of
    /// them, and they would garble messages. Quotes, semicolons, spaces and SQL keywords
    /// are fine (stores quote every identifier).
    private mutating func checkName(_ name: String, entity: String, property: String?) {
        guard let control = name.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return }
        let code = String(control.value, radix: 16, uppercase: true)
        problems.append(
            ModelError(
                .invalidName, entity: entity, property: property,
                message: "the name contains the control character U+\(String(repeating: "0", count: 4 - code.count) + code); "
                    + "names cannot hold control characters (U+0000–U+001F, U+007F)"))
    }

    private mutating func run() throws -> [String: ResolvedEntity] {
        var byName: [String: EntityDescription] = [:]
        for entity in entities {
            if entity.name.isEmpty {
                problems.append(ModelError(.invalidName, entity: entity.name, property: nil, message: "an entity needs a name"))
            }
            checkName(entity.name, entity: entity.name, property: nil)
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                if name.isEmpty {
                    problems.append(ModelError(.invalidName, entity: entity.name, property: name, message: "a property needs a name"))
                }
                checkName(name, entity: entity.name, property: name)
            }
            if byName[entity.name] != nil {
                problems.append(ModelError(.duplicateEntity, entity: entity.name, property: nil, message: "the entity is declared twice"))
            } else {
                byName[entity.name] = entity
            }
        }

        // Ancestor chains; cycles and unknown parents reported once per entity.
        var ancestors: [String: [String]] = [:]
        for entity in entities where ancestors[entity.name] == nil {
            var chain: [String] = []
            var seen: Set<String> = [entity.name]
            var current = entity.parentName
            var broken = false
            while let parent = current {
                guard let parentEntity = byName[parent] else {
                    problems.append(
                        ModelError(
                            .unknownParent, entity: entity.name, property: nil,
                            message: "parent entity '\(parent)' does not exist"))
                    broken = true
                    break
                }
                guard seen.insert(parent).inserted else {
                    problems.append(
                        ModelError(
                            .inheritanceCycle, entity: entity.name, property: nil,
                            message: "inheritance cycle: \(([entity.name] + chain + [parent]).joined(separator: " → "))"))
                    broken = true
                    break
                }
                chain.append(parent)
                current = parentEntity.parentName
            }
            ancestors[entity.name] = broken ? [] : chain
        }

        var resolved: [String: ResolvedEntity] = [:]
        for entity in entities where resolved[entity.name] == nil {
            let chain = ancestors[entity.name] ?? []
            let lineage = chain.reversed().compactMap { byName[$0] } + [entity]  // root first
            var attributes: [AttributeDescription] = []
            var relationships: [RelationshipDescription] = []
            var propertyNames: Set<String> = []
            for declaring in lineage {
                for attribute in declaring.attributes {
                    if !propertyNames.insert(attribute.name).inserted {
                        if declaring.name == entity.name {
                            problems.append(
                                ModelError(
                                    .duplicateProperty, entity: entity.name, property: attribute.name,
                                    message: "the property name is used twice (here or in a parent entity)"))
                        }
                        continue
                    }
                    attributes.append(attribute)
                }
                for relationship in declaring.relationships {
                    if !propertyNames.insert(relationship.name).inserted {
                        if declaring.name == entity.name {
                            problems.append(
                                ModelError(
                                    .duplicateProperty, entity: entity.name, property: relationship.name,
                                    message: "the property name is used twice (here or in a parent entity)"))
                        }
                        continue
                    }
                    relationships.append(relationship)
                }
            }

            // Identity attributes, unioned root-first, without repeats.
            var identity: [Int] = []
            for declaring in lineage {
                for name in declaring.declaredIdentityAttributeNames {
                    guard let i = attributes.firstIndex(where: { $0.name == name }) else {
                        if declaring.name == entity.name {
                            problems.append(
                                ModelError(
                                    .unknownIdentityAttribute, entity: entity.name, property: name,
                                    message: "identity attribute '\(name)' is not an attribute of the entity"))
                        }
                        continue
                    }
                    if !identity.contains(i) { identity.append(i) }
                }
            }

            // JSON mappings.
            var attributeMappings: [(index: Int, keyPath: JSONKeyPath)] = []
            for (i, attribute) in attributes.enumerated() {
                if let keyPath = mapping(
                    entity: entity.name, property: attribute.name, text: attribute.jsonKeyPathText,
                    report: lineage.last?.attributes.contains(where: { $0.name == attribute.name }) ?? false)
                {
                    attributeMappings.append((i, keyPath))
                }
                if let value = attribute.defaultValue, !ModelResolver.value(value, fits: attribute.type) {
                    if entity.attributes.contains(where: { $0.name == attribute.name }) {
                        problems.append(
                            ModelError(
                                .invalidDefaultValue, entity: entity.name, property: attribute.name,
                                message: "default value \(value) is not \(withIndefiniteArticle(attribute.type.description))"))
                    }
                }
            }
            var relationshipMappings: [(index: Int, keyPath: JSONKeyPath)] = []
            for (i, relationship) in relationships.enumerated() {
                if let keyPath = mapping(
                    entity: entity.name, property: relationship.name, text: relationship.jsonKeyPathText,
                    report: entity.relationships.contains(where: { $0.name == relationship.name }))
                {
                    relationshipMappings.append((i, keyPath))
                }
            }

            let subentities = entities.filter { $0.parentName == entity.name }.map(\.name)
            let kinds = [entity.name] + entities.filter { ancestors[$0.name]?.contains(entity.name) ?? false }.map(\.name)
            let mapperName = lineage.reversed().lazy.compactMap(\.entityMapperName).first
            let dictionaryTransformer = lineage.reversed().lazy.compactMap(\.dictionaryTransformerName).first
            resolved[entity.name] = ResolvedEntity(
                declaration: entity, ancestorNames: chain, subentityNames: subentities, kindNames: kinds,
                attributes: attributes, relationships: relationships, identityAttributeIndexes: identity,
                attributeMappings: attributeMappings, relationshipMappings: relationshipMappings,
                entityMapperName: mapperName, dictionaryTransformerName: dictionaryTransformer)
        }

        // Relationships: destinations and inverses.
        for entity in entities {
            for relationship in entity.relationships {
                guard let destination = resolved[relationship.destinationEntity] else {
                    problems.append(
                        ModelError(
                            .unknownDestination, entity: entity.name, property: relationship.name,
                            message: "destination entity '\(relationship.destinationEntity)' does not exist"))
                    continue
                }
                guard let inverseName = relationship.inverseName else { continue }
                guard let inverse = destination.relationship(named: inverseName) else {
                    problems.append(
                        ModelError(
                            .inverseMismatch, entity: entity.name, property: relationship.name,
                            message: "inverse '\(inverseName)' is not a relationship of '\(destination.name)'"))
                    continue
                }
                let pointsBack =
                    inverse.inverseName == relationship.name
                    && (inverse.destinationEntity == entity.name
                        || (resolved[entity.name]?.ancestorNames.contains(inverse.destinationEntity) ?? false))
                if !pointsBack {
                    problems.append(
                        ModelError(
                            .inverseMismatch, entity: entity.name, property: relationship.name,
                            message: "inverse '\(destination.name).\(inverseName)' does not point back "
                                + "(its inverse is '\(inverse.inverseName ?? "none")' on '\(inverse.destinationEntity)')"))
                }
            }
        }

        if !problems.isEmpty { throw ModelValidationError(problems: problems) }
        return resolved
    }

    /// The key path for a property: its annotation, else the key convention's key.
    private mutating func mapping(entity: String, property: String, text: String?, report: Bool) -> JSONKeyPath? {
        if let text {
            do {
                return try JSONKeyPath(parsing: text)
            } catch {
                if report {
                    problems.append(
                        ModelError(
                            .invalidKeyPath, entity: entity, property: property,
                            message: "JSONKeyPath '\(text)' cannot be parsed: \(error)"))
                }
                return nil
            }
        }
        return keyConvention.jsonKey(forPropertyName: property).map(JSONKeyPath.init(key:))
    }

    static func value(_ value: AttributeValue, fits type: AttributeType) -> Bool {
        switch (value, type) {
        case (.string, .string), (.decimal, .decimal), (.bool, .boolean), (.date, .date), (.binary, .binary),
            (.uuid, .uuid), (.uri, .uri), (.json, .json), (.double, .double), (.double, .float):
            return true
        case (.integer(let i), _):
            return type.integerRange?.contains(i) ?? false
        default:
            return false
        }
    }
}
