import Trellis

/// Extends a recorded model with what a model inferred from a later payload adds:
/// new optional attributes, new relationships (with inverses) and new entities; a
/// recorded attribute that the payload leaves out or sets to `null` becomes optional.
/// Nothing recorded is removed or retyped, so a store migrates additively
/// (docs/ModelInference.md, "Extending a recorded model").
///
/// Properties are matched by JSON key path, starting from the imported entity and
/// following relationships, so a hand-written recorded model (other names) is extended
/// correctly too; entities not reached that way are matched by name.
///
///     let extended = try ModelExtension.extend(recorded, with: inferred)
///     for change in extended.changes { print(change) }   // new attribute Status.quotedStatusID, …
public enum ModelExtension {
    /// One addition to the recorded model.
    public enum Change: Sendable, Hashable, CustomStringConvertible {
        case entity(String)
        case attribute(entity: String, name: String)
        case relationship(entity: String, name: String)
        case madeOptional(entity: String, attribute: String)

        /// `new entity Label`, `new attribute Issue.body`, `Issue.body made optional`.
        public var description: String {
            switch self {
            case .entity(let name): return "new entity \(name)"
            case .attribute(let entity, let name): return "new attribute \(entity).\(name)"
            case .relationship(let entity, let name): return "new relationship \(entity).\(name)"
            case .madeOptional(let entity, let attribute): return "\(entity).\(attribute) made optional"
            }
        }
    }

    /// The extended model and what changed (empty: the recorded model fits the payload as it is).
    public struct Extension: Sendable {
        public var file: ModelFile
        public var changes: [Change]
    }

    /// The recorded model extended with what `inferred` adds.
    ///
    /// - Throws: ``ModelInferenceError`` `.typeConflict` when a value of the payload does
    ///   not fit the recorded model (a string where the recorded attribute is integer64, an
    ///   array where it has a to-one relationship), naming the input, the JSON path of the
    ///   first such value, the entity, the property and both types.
    public static func extend(_ recorded: ModelFile, with inferred: InferredModel) throws(ModelInferenceError) -> Extension {
        var merger = ModelMerger(recorded: recorded, inferred: inferred)
        try merger.run()
        return try merger.result()
    }
}

/// The work of ``ModelExtension/extend(_:with:)``.
struct ModelMerger {
    let recorded: ModelFile
    let inferred: InferredModel
    private var entities: [EntityDescription]
    private var bindings: BindingDeclarations
    private(set) var changes: [ModelExtension.Change] = []
    /// Inferred entity name → recorded (or added) entity name.
    private var mapping: [String: String] = [:]
    private var queue: [(inferred: String, recorded: String)] = []
    /// Inferred entities added whole.
    private var added: Set<String> = []
    /// New keyed relationships, which get an inverse once every entity is placed.
    private var newRelationships: [(entity: String, name: String)] = []

    init(recorded: ModelFile, inferred: InferredModel) {
        self.recorded = recorded
        self.inferred = inferred
        entities = recorded.model.entities
        bindings = recorded.bindingDeclarations
    }

    // MARK: - Walking

    mutating func run() throws(ModelInferenceError) {
        let root = inferred.rootEntity
        if recorded.model.entity(named: root) != nil {
            place(root, as: root)
        } else {
            addEntity(root)
        }
        var index = 0
        while index < queue.count {
            let pair = queue[index]
            index += 1
            if added.contains(pair.inferred) {
                try fillAdded(pair.inferred)
            } else {
                try merge(pair.inferred, into: pair.recorded)
            }
        }
        addInverses()
    }

    func result() throws(ModelInferenceError) -> ModelExtension.Extension {
        do {
            let model = try ObjectModel(
                entities: entities, keyConvention: recorded.model.keyConvention,
                versionLabel: recorded.model.versionLabel)
            return ModelExtension.Extension(file: try ModelFile(model: model, bindingDeclarations: bindings), changes: changes)
        } catch {
            throw ModelInferenceError(
                .typeConflict, entity: inferred.rootEntity,
                message: "the recorded model cannot be extended with the payload's: \(error)")
        }
    }

    private mutating func place(_ inferredName: String, as recordedName: String) {
        guard mapping[inferredName] == nil else { return }
        mapping[inferredName] = recordedName
        queue.append((inferredName, recordedName))
    }

    /// The inferred entity `name` added under a name the recorded model does not use.
    private mutating func addEntity(_ name: String) {
        guard mapping[name] == nil, let entity = inferred.file.model.entity(named: name)?.declaration else { return }
        var newName = name
        var n = 2
        while entities.contains(where: { $0.name == newName }) {
            newName = name + String(n)
            n += 1
        }
        entities.append(EntityDescription(name: newName, userInfo: entity.userInfo))
        changes.append(.entity(newName))
        added.insert(name)
        mapping[name] = newName
        queue.append((name, newName))
    }

    /// The destination of an inferred relationship, placed: the recorded entity it maps to,
    /// a recorded entity of the same name, or a new entity.
    private mutating func destination(of inferredName: String) -> String {
        if let known = mapping[inferredName] { return known }
        if recorded.model.entity(named: inferredName) != nil, !mapping.values.contains(inferredName) {
            place(inferredName, as: inferredName)
        } else {
            addEntity(inferredName)
        }
        return mapping[inferredName] ?? inferredName
    }

    // MARK: - Merging

    /// Copies an added entity's attributes and keyed relationships (destinations placed).
    private mutating func fillAdded(_ name: String) throws(ModelInferenceError) {
        guard let source = inferred.file.model.entity(named: name)?.declaration, let target = mapping[name],
            let t = entities.firstIndex(where: { $0.name == target })
        else { return }
        entities[t].attributes = source.attributes
        for relationship in source.relationships where relationship.jsonKeyPathText != nil {
            var copy = relationship
            copy.destinationEntity = destination(of: relationship.destinationEntity)
            copy.inverseName = nil
            entities[t].relationships.append(copy)
            newRelationships.append((target, copy.name))
        }
        addBindings(for: source.attributes)
    }

    /// Checks and adds the properties of inferred entity `inferredName` to recorded entity `recordedName`.
    private mutating func merge(_ inferredName: String, into recordedName: String) throws(ModelInferenceError) {
        guard let source = inferred.file.model.entity(named: inferredName),
            let target = recorded.model.entity(named: recordedName)
        else { return }
        let observed = inferred.evidence[inferredName] != nil
        let evidence = inferred.evidence[inferredName] ?? [:]
        for attribute in source.declaration.attributes {
            guard let keyPath = attribute.jsonKeyPathText.flatMap({ try? JSONKeyPath(parsing: $0) }) else { continue }
            let facts = evidence[attribute.name]
            if try !fitsAroundRecordedObjects(facts, at: keyPath, in: target) { continue }
            if let i = target.attributeMappings.first(where: { $0.keyPath == keyPath })?.index {
                let existing = target.attributes[i]
                try check(facts, fit: existing, in: target.name, keyPath: keyPath)
                if !existing.isOptional, attribute.isOptional { makeOptional(existing.name, of: target) }
            } else if let i = target.relationshipMappings.first(where: { $0.keyPath == keyPath })?.index {
                try check(facts, fitBareIdentifiersOf: target.relationships[i], in: target.name, keyPath: keyPath)
            } else {
                addAttribute(attribute, to: target)
            }
        }
        // A required attribute whose key no sampled object had (or only with null) becomes optional.
        // A key the payload has an object at counts as sampled (`n` for a payload's `n.a`).
        var sampled: Set<JSONKeyPath> = []
        for keyPath in (source.declaration.attributes.map(\.jsonKeyPathText) + source.declaration.relationships.map(\.jsonKeyPathText))
            .compactMap({ $0.flatMap { try? JSONKeyPath(parsing: $0) } })
        {
            for count in 1...max(1, keyPath.components.count) { sampled.insert(JSONKeyPath(components: Array(keyPath.components.prefix(count)))) }
        }
        let identity = Set(target.identityAttributeIndexes)
        for (i, keyPath) in target.attributeMappings where observed && !identity.contains(i) && !sampled.contains(keyPath) {
            if !target.attributes[i].isOptional { makeOptional(target.attributes[i].name, of: target) }
        }
        for relationship in source.declaration.relationships {
            guard let keyPath = relationship.jsonKeyPathText.flatMap({ try? JSONKeyPath(parsing: $0) }) else { continue }
            let facts = evidence[relationship.name]
            if try !fitsAroundRecordedObjects(facts, at: keyPath, in: target) { continue }
            let isReference = facts.map { !Set($0.classes).isDisjoint(with: ValueClass.strings.union(ValueClass.numbers).union([.scalarArray])) } ?? false
            if let i = target.relationshipMappings.first(where: { $0.keyPath == keyPath })?.index {
                let existing = target.relationships[i]
                if existing.isToMany != relationship.isToMany, !isReference {
                    throw conflict(
                        facts, entity: target.name, property: existing.name, keyPath: keyPath,
                        recorded: existing.isToMany
                            ? "a to-many relationship to \(existing.destinationEntity)"
                            : "a to-one relationship to \(existing.destinationEntity)",
                        classes: relationship.isToMany ? [.objectArray] : [.object])
                }
                place(relationship.destinationEntity, as: existing.destinationEntity)
            } else if let i = target.attributeMappings.first(where: { $0.keyPath == keyPath })?.index {
                let existing = target.attributes[i]
                if isReference {
                    try check(facts, fit: existing, in: target.name, keyPath: keyPath)
                } else if existing.type != .json {
                    throw conflict(
                        facts, entity: target.name, property: existing.name, keyPath: keyPath,
                        recorded: "a \(existing.type) attribute", classes: [.object, .objectArray])
                }
            } else {
                var copy = relationship
                copy.destinationEntity = destination(of: relationship.destinationEntity)
                copy.inverseName = nil
                copy.name = claim(relationship.name, in: target.name)
                append(relationship: copy, to: target.name)
                newRelationships.append((target.name, copy.name))
                changes.append(.relationship(entity: target.name, name: copy.name))
            }
        }
    }

    // MARK: - Checks

    /// Checks a payload property at `keyPath` against the recorded properties around it:
    /// one recorded at a key path inside it (`n.a.b`, flattened from an object at `n.a`)
    /// means the recorded model reads an object there, so anything else is a conflict (else
    /// the extended model would no longer import the payloads it was made for); one recorded
    /// at a key path above it (`n`, for the payload's `n.a`) means the payload has an
    /// object where the recorded model has that property: a `json` attribute holds it (the
    /// payload property is not added), anything else is a conflict. A recorded relationship
    /// above it reads the object as its destination: the payload property is not added to
    /// this entity, and the import checks the object.
    /// - Returns: false when the payload property is covered by a recorded one (not added).
    private func fitsAroundRecordedObjects(
        _ facts: KeyEvidence?, at keyPath: JSONKeyPath,
        in target: ResolvedEntity
    ) throws(ModelInferenceError) -> Bool {
        func isStrictPrefix(_ a: JSONKeyPath, of b: JSONKeyPath) -> Bool {
            a.components.count < b.components.count && Array(b.components.prefix(a.components.count)) == a.components
        }
        let mappings =
            target.attributeMappings.map { (keyPath: $0.keyPath, name: target.attributes[$0.index].name) }
            + target.relationshipMappings.map { (keyPath: $0.keyPath, name: target.relationships[$0.index].name) }
        if let inside = mappings.first(where: { isStrictPrefix(keyPath, of: $0.keyPath) }), let facts {
            // Objects at this key are flattened like the recorded ones; other values conflict.
            let others = facts.classes.filter { $0 != .object }
            if !others.isEmpty {
                throw conflict(
                    facts, entity: target.name, property: inside.name, keyPath: inside.keyPath,
                    recorded: "an object at \(keyPath)", classes: others)
            }
        }
        for (index, recorded) in target.attributeMappings where isStrictPrefix(recorded, of: keyPath) {
            let existing = target.attributes[index]
            if existing.type == .json { return false }
            throw conflict(
                facts, entity: target.name, property: existing.name, keyPath: recorded,
                recorded: "type \(existing.type)" + (existing.transformerName.map { " (transformer \($0))" } ?? ""),
                classes: [.object], found: "an object here",
                dropping: keyPath.components.count - recorded.components.count)
        }
        if target.relationshipMappings.contains(where: { isStrictPrefix($0.keyPath, of: keyPath) }) { return false }
        return true
    }

    /// Throws unless every class of value the payload has at `keyPath` imports into `attribute`.
    private func check(
        _ facts: KeyEvidence?, fit attribute: AttributeDescription, in entity: String,
        keyPath: JSONKeyPath
    ) throws(ModelInferenceError) {
        guard let facts, let accepted = ValueFit.classes(accepting: attribute, bindings: bindings, integers: facts.integerRange) else { return }
        let rejected = facts.classes.filter { !accepted.contains($0) }
        var outOfRange: [ValueClass] = []
        if let range = attribute.type.integerRange, let seen = facts.integerRange,
            seen.lowerBound < range.lowerBound || seen.upperBound > range.upperBound
        {
            outOfRange = [.integer]
        }
        let recordedType = "type \(attribute.type)" + (attribute.transformerName.map { " (transformer \($0))" } ?? "")
        guard rejected.isEmpty else {
            throw conflict(facts, entity: entity, property: attribute.name, keyPath: keyPath, recorded: recordedType, classes: rejected)
        }
        if !outOfRange.isEmpty, let seen = facts.integerRange {
            throw conflict(
                facts, entity: entity, property: attribute.name, keyPath: keyPath, recorded: recordedType,
                classes: outOfRange, found: "integers from \(seen.lowerBound) to \(seen.upperBound) (the first here)")
        }
    }

    /// Throws unless the values at `keyPath` can be a relationship's bare identifiers (or nested objects).
    private func check(
        _ facts: KeyEvidence?, fitBareIdentifiersOf relationship: RelationshipDescription, in entity: String,
        keyPath: JSONKeyPath
    ) throws(ModelInferenceError) {
        guard let facts else { return }
        let accepted: Set<ValueClass> =
            relationship.isToMany
            ? [.objectArray, .emptyArray, .scalarArray]
            : ValueClass.strings.union([.integer, .object])
        let rejected = facts.classes.filter { !accepted.contains($0) }
        guard rejected.isEmpty else {
            throw conflict(
                facts, entity: entity, property: relationship.name, keyPath: keyPath,
                recorded: (relationship.isToMany ? "a to-many" : "a to-one") + " relationship to \(relationship.destinationEntity)",
                classes: rejected)
        }
    }

    /// `entity Status, attribute retweetCount (key retweet_count): the recorded model has type
    /// integer64, but the payload has a string here (their type would be string); …`, at the first such value.
    private func conflict(
        _ facts: KeyEvidence?, entity: String, property: String, keyPath: JSONKeyPath, recorded: String,
        classes: [ValueClass], found explicitFound: String? = nil, dropping: Int = 0
    ) -> ModelInferenceError {
        var place = facts?.firstPlace(among: classes) ?? facts?.firstPlace(among: facts?.classes ?? [])
        // The place of the enclosing object, for a value found inside it.
        if dropping > 0, let p = place { place?.path = JSONPath(components: Array(p.path.components.dropLast(dropping))) }
        let found = explicitFound ?? ((classes.first.map(\.phrase) ?? "other values") + " here")
        let needed = AttributeTyping(classes: facts?.classes ?? classes)
        let structural = !Set(facts?.classes ?? classes).isDisjoint(with: [.object, .objectArray])
        let suggestion = structural || explicitFound != nil ? "" : " (their type would be \(needed.type))"
        return ModelInferenceError(
            .typeConflict, source: place.flatMap(inferred.source(of:)), path: place?.path, entity: entity,
            property: property,
            message: "entity \(entity), property \(property) (key \(keyPath)): the recorded model has \(recorded), "
                + "but the payload has \(found)\(suggestion); the store was not changed")
    }

    // MARK: - Additions

    private mutating func addAttribute(_ attribute: AttributeDescription, to target: ResolvedEntity) {
        var copy = attribute
        copy.isOptional = true
        copy.name = claim(attribute.name, in: target.name)
        guard let t = entities.firstIndex(where: { $0.name == target.name }) else { return }
        entities[t].attributes.append(copy)
        changes.append(.attribute(entity: target.name, name: copy.name))
        addBindings(for: [copy])
    }

    private mutating func makeOptional(_ attribute: String, of target: ResolvedEntity) {
        // The attribute may be declared by a parent entity.
        let owners = [target.name] + target.ancestorNames
        for owner in owners {
            guard let e = entities.firstIndex(where: { $0.name == owner }),
                let a = entities[e].attributes.firstIndex(where: { $0.name == attribute })
            else { continue }
            guard !entities[e].attributes[a].isOptional else { return }
            entities[e].attributes[a].isOptional = true
            changes.append(.madeOptional(entity: owner, attribute: attribute))
            return
        }
    }

    /// Bindings the inferred model declares for `attributes`' transformers, when the
    /// recorded bindings do not have the name.
    private mutating func addBindings(for attributes: [AttributeDescription]) {
        for name in attributes.compactMap(\.transformerName) where bindings.transformers[name] == nil {
            if let declaration = inferred.file.bindingDeclarations.transformers[name] { bindings.transformers[name] = declaration }
        }
    }

    private mutating func append(relationship: RelationshipDescription, to entity: String) {
        guard let e = entities.firstIndex(where: { $0.name == entity }) else { return }
        entities[e].relationships.append(relationship)
    }

    /// `name`, or `name2`, … not used by `entity`, its parents or its sub-entities.
    private func claim(_ name: String, in entity: String) -> String {
        var used: Set<String> = []
        let related = Set(relatedEntities(of: entity))
        for e in entities where related.contains(e.name) {
            used.formUnion(e.attributes.map(\.name))
            used.formUnion(e.relationships.map(\.name))
        }
        var candidate = name
        var n = 2
        while used.contains(candidate) {
            candidate = name + String(n)
            n += 1
        }
        return candidate
    }

    /// `entity`, its ancestors and its descendants (the entities whose property names it shares).
    private func relatedEntities(of entity: String) -> [String] {
        var names = [entity]
        var parent = entities.first { $0.name == entity }?.parentName
        while let p = parent, !names.contains(p) {
            names.append(p)
            parent = entities.first { $0.name == p }?.parentName
        }
        var frontier = [entity]
        while let current = frontier.popLast() {
            for child in entities where child.parentName == current && !names.contains(child.name) {
                names.append(child.name)
                frontier.append(child.name)
            }
        }
        return names
    }

    /// A to-many inverse for every new relationship, named as inference names them.
    private mutating func addInverses() {
        let addedNames = Set(added.compactMap { mapping[$0] })
        for (entity, name) in newRelationships {
            guard let e = entities.firstIndex(where: { $0.name == entity }),
                let r = entities[e].relationships.firstIndex(where: { $0.name == name })
            else { continue }
            let destination = entities[e].relationships[r].destinationEntity
            var words = InferenceNaming.words(of: entity)
            if let last = words.popLast() { words.append(InferenceNaming.plural(last)) }
            var inverse = InferenceNaming.lowerCamel(words)
            let existing = entities.first { $0.name == destination }?.relationships ?? []
            if destination == entity || existing.contains(where: { $0.destinationEntity == entity }) {
                inverse += "Via" + (name.first.map { $0.uppercased() + name.dropFirst() } ?? "")
            }
            inverse = claim(inverse, in: destination)
            entities[e].relationships[r].inverseName = inverse
            append(
                relationship: RelationshipDescription(name: inverse, destinationEntity: entity, inverseName: name, isToMany: true),
                to: destination)
            if !addedNames.contains(destination) { changes.append(.relationship(entity: destination, name: inverse)) }
        }
    }
}
