import Trellis

/// Turns grouped sample nodes into entity descriptions: names, attribute types,
/// identities, relationships and their inverses (docs/ModelInference.md).
struct InferredModelBuilder {
    /// An entity being built.
    struct Draft {
        var group: Int
        var name: String
        /// The entity whose objects led to this one (for names that need a prefix).
        var parent: Int?
        var identityKeys: [String]
        var objectCount: Int
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        /// Per property name: where its values were, what they were.
        var evidence: [String: KeyEvidence] = [:]
        var names: Set<String> = []
    }

    let grouping: EntityGrouping
    let rootName: String
    /// Entities of a model being extended: a key `<name>Id` may refer to them.
    let knownEntities: [KnownEntity]
    private(set) var drafts: [Draft] = []
    private var draftOfGroup: [Int: Int] = [:]
    private(set) var usesTwitterDate = false

    init(grouping: EntityGrouping, rootName: String, knownEntities: [KnownEntity]) {
        self.grouping = grouping
        self.rootName = rootName
        self.knownEntities = knownEntities
    }

    // MARK: - Building

    /// The entities, the root first, then in the order they are reached.
    mutating func build() -> [EntityDescription] {
        discoverEntities()
        for d in drafts.indices { addProperties(to: d) }
        resolveReferences()
        addInverses()
        return drafts.map { draft in
            var userInfo: [String: String] = [:]
            let identityNames = draft.identityKeys.compactMap { key in
                draft.attributes.first { $0.jsonKeyPathText == JSONKeyPath(key: key).description }?.name
            }
            if !identityNames.isEmpty { userInfo[GrootAnnotation.identityAttributes] = identityNames.joined(separator: ",") }
            return EntityDescription(
                name: draft.name, attributes: draft.attributes, relationships: draft.relationships,
                userInfo: userInfo)
        }
    }

    /// Entities reachable from the root, breadth first, named as they are met.
    private mutating func discoverEntities() {
        var queue = [grouping.find(0)]
        var taken: Set<String> = []
        var index = 0
        while index < queue.count {
            let g = queue[index]
            index += 1
            let group = grouping.groups[g]
            let parent = group.parent.flatMap { draftOfGroup[grouping.find($0)] }
            let name = g == queue[0] ? rootName : entityName(for: group.words, parent: parent.map { drafts[$0].name }, taken: taken)
            taken.insert(name)
            draftOfGroup[g] = drafts.count
            drafts.append(
                Draft(
                    group: g, name: name, parent: parent, identityKeys: group.identity.keys,
                    objectCount: MergedKeys(group.nodes).objectCount))
            for member in members(of: g) {
                if case .relationship(let nodes, _, _) = member.kind, let target = nodes.lazy.compactMap(grouping.group(of:)).first,
                    !queue.contains(target)
                {
                    queue.append(target)
                }
            }
        }
    }

    private func members(of group: Int) -> [ShapeMember] {
        EntityGrouping.members(of: grouping.groups[group].nodes, prefix: []) { nodes, _, _ in
            nodes.contains { grouping.group(of: $0) != nil }
        }
    }

    /// `UserMention` for `user_mentions`; prefixed with the parent entity's name when the
    /// name is taken, reserved or does not start with a letter; then numbered.
    private func entityName(for words: [String], parent: String?, taken: Set<String>) -> String {
        let base = InferenceNaming.upperCamel(words)
        let valid = !base.isEmpty && InferenceNaming.startsWithASCIILetter(base) && !InferenceNaming.reservedEntityNames.contains(base)
        var candidates: [String] = []
        if valid { candidates.append(base) }
        if let parent { candidates.append(parent + (base.isEmpty ? "Item" : base)) }
        for name in candidates where !taken.contains(name) { return name }
        let stem = candidates.last ?? "Entity"
        var n = 2
        while taken.contains(stem + String(n)) { n += 1 }
        return stem + String(n)
    }

    // MARK: - Properties

    private mutating func addProperties(to d: Int) {
        let members = self.members(of: drafts[d].group)
        let identity = drafts[d].identityKeys
        // Identity attributes first, then the rest in the order their keys were met.
        let ordered =
            members.filter { $0.path.count == 1 && identity.contains($0.path[0]) }
            .sorted { identity.firstIndex(of: $0.path[0])! < identity.firstIndex(of: $1.path[0])! }
            + members.filter { !($0.path.count == 1 && identity.contains($0.path[0])) }
        for member in ordered {
            let keyPath = JSONKeyPath(components: member.path.map { .key($0, index: nil) }).description
            let words = member.path.flatMap(InferenceNaming.words(of:))
            switch member.kind {
            case .attribute(let evidence, let isJSON):
                let isIdentity = member.path.count == 1 && identity.contains(member.path[0])
                var typing = isJSON ? AttributeTyping(type: .json, transformer: nil) : AttributeTyping(classes: evidence.classes)
                if isIdentity, identity.count == 1 { typing = AttributeTyping(identityClasses: evidence.classes) }
                if typing.transformer == AttributeTyping.twitterDateName { usesTwitterDate = true }
                let name = propertyName(words, in: d)
                var userInfo = [GrootAnnotation.jsonKeyPath: keyPath]
                if let transformer = typing.transformer { userInfo[GrootAnnotation.jsonTransformerName] = transformer }
                // Identity keys are in every object of the place that chose them; objects met at a
                // place joined to the entity later may lack them (and are then inserted without identity).
                let required = evidence.nonNull == drafts[d].objectCount
                drafts[d].attributes.append(
                    AttributeDescription(
                        name: name, type: typing.type, isOptional: !required,
                        userInfo: userInfo))
                drafts[d].evidence[name] = evidence
            case .relationship(let nodes, let toMany, let evidence):
                guard let target = nodes.lazy.compactMap(grouping.group(of:)).first, let destination = draftOfGroup[target] else { continue }
                let name = propertyName(words, in: d)
                drafts[d].relationships.append(
                    RelationshipDescription(
                        name: name, destinationEntity: drafts[destination].name, isToMany: toMany, isOrdered: toMany,
                        userInfo: [GrootAnnotation.jsonKeyPath: keyPath]))
                drafts[d].evidence[name] = evidence
            }
        }
    }

    /// A property name from the words of its key path (`profile_image_url_https` →
    /// `profileImageURLHTTPS`), prefixed with the entity's name when reserved or not
    /// starting with a letter (`description` → `userDescription`), numbered when taken.
    private mutating func propertyName(_ words: [String], in d: Int) -> String {
        var name = InferenceNaming.lowerCamel(words)
        if name.isEmpty { name = "value" }
        if InferenceNaming.reservedPropertyNames.contains(name) || !InferenceNaming.startsWithASCIILetter(name) {
            let prefix = InferenceNaming.lowerCamel(InferenceNaming.words(of: drafts[d].name))
            name = prefix + (name.first.map { $0.uppercased() + name.dropFirst() } ?? "")
        }
        return claim(name, in: d)
    }

    /// `name`, or `name2`, `name3`, … the first not used by the entity yet; recorded as used.
    private mutating func claim(_ name: String, in d: Int) -> String {
        var candidate = name
        var n = 2
        while drafts[d].names.contains(candidate) {
            candidate = name + String(n)
            n += 1
        }
        drafts[d].names.insert(candidate)
        return candidate
    }

    // MARK: - References and inverses

    /// Keys `<name>_id` / `<name>Id` (`<name>_ids` / `<name>Ids`) holding identifiers of an
    /// entity named `<Name>` become relationships by identifier (docs/ModelInference.md, "References").
    private mutating func resolveReferences() {
        for d in drafts.indices where drafts[d].identityKeys.count == 1 {
            var kept: [AttributeDescription] = []
            for attribute in drafts[d].attributes {
                guard let reference = reference(for: attribute, in: d) else {
                    kept.append(attribute)
                    continue
                }
                drafts[d].names.remove(attribute.name)
                if !drafts.contains(where: { $0.name == reference.destination }),
                    let known = knownEntities.first(where: { $0.name == reference.destination }),
                    let keyPath = known.identityAttribute.jsonKeyPathText.flatMap({ try? JSONKeyPath(parsing: $0) })
                {
                    // A stub of the extended model's entity, so that the inferred model stands on its own.
                    var stub = Draft(group: -1, name: known.name, parent: nil, identityKeys: [keyPath.components[0].key], objectCount: 0)
                    stub.attributes = [known.identityAttribute]
                    stub.names = [known.identityAttribute.name]
                    drafts.append(stub)
                }
                let name = claim(reference.name, in: d)
                drafts[d].relationships.append(
                    RelationshipDescription(
                        name: name, destinationEntity: reference.destination, isToMany: reference.toMany, isOrdered: reference.toMany,
                        userInfo: [GrootAnnotation.jsonKeyPath: attribute.jsonKeyPathText ?? ""]))
                if let evidence = drafts[d].evidence.removeValue(forKey: attribute.name) { drafts[d].evidence[name] = evidence }
            }
            drafts[d].attributes = kept
        }
    }

    private func reference(for attribute: AttributeDescription, in d: Int)
        -> (name: String, destination: String, toMany: Bool)?
    {
        guard let keyPath = attribute.jsonKeyPathText, let path = try? JSONKeyPath(parsing: keyPath), path.components.count == 1,
            !drafts[d].identityKeys.contains(path.components[0].key), let evidence = drafts[d].evidence[attribute.name]
        else { return nil }
        var words = InferenceNaming.words(of: path.components[0].key)
        guard words.count >= 2, let last = words.popLast(), last == "id" || last == "ids" else { return nil }
        let toMany = last == "ids"
        let classes = Set(evidence.classes)
        // The identifiers: the values themselves, or the elements of the arrays; integers
        // and strings only (no null, no nested array), all of one kind.
        let identifiers: Set<ValueClass>
        if toMany {
            guard classes == [.scalarArray] || classes == [.scalarArray, .emptyArray] else { return nil }
            identifiers = evidence.elementClasses
        } else {
            identifiers = classes
        }
        guard !identifiers.isEmpty, identifiers.isSubset(of: ValueClass.strings.union([.integer])) else { return nil }
        let integer = identifiers.isSubset(of: [.integer, .integerString])
        let entityName = InferenceNaming.upperCamel(words)
        let name = InferenceNaming.lowerCamel(toMany ? words.dropLast() + [InferenceNaming.plural(words.last ?? "")] : words)
        if let draft = drafts.first(where: { $0.name == entityName }), draft.identityKeys.count == 1,
            let identity = draft.attributes.first(where: { $0.jsonKeyPathText == JSONKeyPath(key: draft.identityKeys[0]).description })
        {
            guard (identity.type == .integer64) == integer else { return nil }
            return (name, entityName, toMany)
        }
        if let known = knownEntities.first(where: { $0.name == entityName }), known.identityAttribute.type.isInteger == integer {
            return (name, entityName, toMany)
        }
        return nil
    }

    /// Every relationship gets a to-many inverse on its destination, named after the
    /// source entity (`statuses`), with `Via<Relationship>` for a second relationship
    /// between the same entities and for self-relationships (`statusesViaRetweetedStatus`).
    private mutating func addInverses() {
        var seenPairs: Set<String> = []
        for d in drafts.indices {
            for r in drafts[d].relationships.indices {
                let relationship = drafts[d].relationships[r]
                guard relationship.inverseName == nil, let destination = drafts.firstIndex(where: { $0.name == relationship.destinationEntity }) else {
                    continue
                }
                var words = InferenceNaming.words(of: drafts[d].name)
                if let last = words.popLast() { words.append(InferenceNaming.plural(last)) }
                var name = InferenceNaming.lowerCamel(words)
                let pair = drafts[d].name + "\u{0}" + relationship.destinationEntity
                if destination == d || !seenPairs.insert(pair).inserted {
                    name += "Via" + (relationship.name.first.map { $0.uppercased() + relationship.name.dropFirst() } ?? "")
                }
                let inverse = claim(name, in: destination)
                drafts[d].relationships[r].inverseName = inverse
                drafts[destination].relationships.append(
                    RelationshipDescription(
                        name: inverse, destinationEntity: drafts[d].name, inverseName: relationship.name, isToMany: true))
            }
        }
    }
}

/// An entity of a model being extended, which a key `<name>Id` of the new samples may
/// refer to (see ``ModelInference/knownEntities``).
public struct KnownEntity: Sendable, Hashable {
    /// The entity's name (`Event`).
    public var name: String
    /// Its one identity attribute, as the model being extended declares it.
    public var identityAttribute: AttributeDescription

    /// An entity named `name` identified by `identityAttribute` (mapped to a one-key path).
    public init(name: String, identityAttribute: AttributeDescription) {
        self.name = name
        self.identityAttribute = identityAttribute
    }

    /// The entities of `model` with one identity attribute mapped to a single key.
    public static func entities(of model: ObjectModel) -> [KnownEntity] {
        model.resolvedEntities.compactMap { entity in
            guard entity.identityAttributes.count == 1, let attribute = entity.identityAttributes.first,
                let text = attribute.jsonKeyPathText, let path = try? JSONKeyPath(parsing: text), path.components.count == 1
            else {
                return nil
            }
            return KnownEntity(name: entity.name, identityAttribute: attribute)
        }
    }
}
