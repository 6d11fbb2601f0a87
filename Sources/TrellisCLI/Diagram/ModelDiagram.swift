import Trellis

/// The entity–relationship picture of a model that `trellis model show --format mermaid|dot`
/// writes: every entity with its declared attributes (type, identity, required, JSON key
/// path), every relationship once per inverse pair with the cardinality of both ends and
/// the delete rules, and every sub-entity linked to its parent.
///
/// Two texts of the same picture: ``mermaid`` (a Mermaid `erDiagram`, which GitHub renders
/// in a Markdown code block) and ``dot`` (Graphviz DOT, for `dot -Tsvg`). The same model
/// always gives the same bytes, in model order.
struct ModelDiagram {
    /// How many objects one end of a link holds, in the crow's-foot notation both texts draw.
    enum Cardinality: Equatable {
        case zeroOrOne, exactlyOne, zeroOrMore, oneOrMore

        /// The destination end of `relationship`: a to-one is exactly one when required, a
        /// to-many one or more when required or with a minimum count.
        init(_ relationship: RelationshipDescription) {
            if relationship.isToMany {
                self = relationship.minCount > 0 || !relationship.isOptional ? .oneOrMore : .zeroOrMore
            } else {
                self = relationship.isOptional ? .zeroOrOne : .exactlyOne
            }
        }
    }

    /// A relationship and its inverse, drawn as one line from `source` to `destination`.
    struct Link {
        let source: ResolvedEntity
        let relationship: RelationshipDescription
        /// The inverse relationship on the destination (or a parent of it), nil when none.
        let inverse: RelationshipDescription?

        var destinationName: String { relationship.destinationEntity }
        /// The end at the destination: the relationship's own cardinality.
        var destinationEnd: Cardinality { Cardinality(relationship) }
        /// The end at the source: the inverse's cardinality; without an inverse nothing
        /// bounds how many sources link one destination, so zero or more.
        var sourceEnd: Cardinality { inverse.map(Cardinality.init) ?? .zeroOrMore }

        /// `powers (ordered) / characters`, `vehicles (cascade) / garage`, `owner / no inverse`:
        /// each side's name, with `ordered` and a delete rule other than nullify.
        var label: String {
            func side(_ r: RelationshipDescription) -> String {
                var traits: [String] = []
                if r.isOrdered { traits.append("ordered") }
                if r.deleteRule != .nullify { traits.append(r.deleteRule.rawValue) }
                return r.name + (traits.isEmpty ? "" : " (\(traits.joined(separator: ", ")))")
            }
            return side(relationship) + " / " + (inverse.map(side) ?? "no inverse")
        }
    }

    let model: ObjectModel

    // MARK: - Shared walk

    /// Every relationship once: a relationship whose inverse was drawn already is skipped.
    var links: [Link] {
        var drawn: Set<String> = []
        func key(_ entity: String, _ relationship: String) -> String { entity + "\u{0}" + relationship }
        var links: [Link] = []
        for entity in model.resolvedEntities {
            for relationship in entity.declaration.relationships where !drawn.contains(key(entity.name, relationship.name)) {
                drawn.insert(key(entity.name, relationship.name))
                let inverse = relationship.inverseName.flatMap { declaring(relationship: $0, in: relationship.destinationEntity) }
                if let inverse { drawn.insert(key(inverse.entity, inverse.relationship.name)) }
                links.append(Link(source: entity, relationship: relationship, inverse: inverse?.relationship))
            }
        }
        return links
    }

    /// The relationship `name` of entity `entityName` or of the parent that declares it.
    private func declaring(relationship name: String, in entityName: String) -> (entity: String, relationship: RelationshipDescription)? {
        guard let entity = model.entity(named: entityName) else { return nil }
        for owner in [entity.name] + entity.ancestorNames {
            if let found = model.entity(named: owner)?.declaration.relationships.first(where: { $0.name == name }) {
                return (owner, found)
            }
        }
        return nil
    }

    /// One row of an entity's attribute list.
    struct AttributeRow {
        let attribute: AttributeDescription
        let isIdentity: Bool
        /// The JSON key path it maps from, nil when not mapped.
        let keyPath: String?
    }

    /// The attributes `entity` declares (inherited ones appear on the parent), in model order.
    func rows(_ entity: ResolvedEntity) -> [AttributeRow] {
        let identity = Set(entity.identityAttributes.map(\.name))
        return entity.declaration.attributes.map { attribute in
            let keyPath = entity.attributeIndex(of: attribute.name).flatMap { index in
                entity.attributeMappings.first { $0.index == index }?.keyPath
            }
            return AttributeRow(attribute: attribute, isIdentity: identity.contains(attribute.name), keyPath: keyPath.map { "\($0)" })
        }
    }

    /// `(parent, sub-entity)` for every entity with a parent, in model order.
    var inheritance: [(parent: String, child: String)] {
        model.entities.compactMap { entity in entity.parentName.map { ($0, entity.name) } }
    }

    /// Whether `name` is an ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`), which both texts
    /// write as it is; other names are quoted or replaced by a synthetic identifier.
    static func isPlainIdentifier(_ name: String) -> Bool {
        func isLetter(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        guard let first = name.unicodeScalars.first, isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }
}
