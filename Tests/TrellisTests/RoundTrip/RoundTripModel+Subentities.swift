import TrellisTestSupport

@testable import Trellis

/// A family of sub-entities in a generated model: a parent (abstract or not) with an
/// entity mapper reading `kind`, and two sub-entities, with the identity declared on the
/// parent (one namespace: a Vehicle 1 is a Car or a Bike) or on each sub-entity (Cat 1 and
/// Dog 1 are two objects, the abstract parent having no identity), as docs/ModelFormat.md,
/// "Identity across sub-entities", has them.
extension RoundTripModel {
    struct Family {
        var parent: Int
        /// The entities the mapper may choose (the parent first when it is concrete).
        var concretes: [Int]
        var identityOnParent: Bool
    }

    static func addFamily(_ entities: inout [Entity], _ random: inout SplitMix64) -> Family {
        let parent = entities.count
        let identityOnParent = random.next() % 2 == 0
        let isAbstract = !identityOnParent || random.next() % 2 == 0
        var entity = Entity(name: "E\(parent)", identity: identityOnParent ? .single : .none)
        entity.isAbstract = isAbstract
        entity.mapperName = "KindOfE\(parent)"
        if !isAbstract { entity.kind = "p" }
        if identityOnParent { entity.attributes.append(Attribute(name: "id", type: .integer64, keyPath: "id", isIdentity: true)) }
        entity.attributes.append(Attribute(name: "kind", type: .string, keyPath: "kind", isIdentity: false, isMapperKey: true))
        addAttributes(&entity, &random, prefix: "p")
        entities.append(entity)
        var family = Family(parent: parent, concretes: isAbstract ? [] : [parent], identityOnParent: identityOnParent)
        for k in 1...2 {
            var sub = Entity(name: "E\(entities.count)", identity: .single)
            sub.parent = parent
            sub.kind = "c\(k)"
            if !identityOnParent { sub.attributes.append(Attribute(name: "id", type: .integer64, keyPath: "id", isIdentity: true)) }
            addAttributes(&sub, &random, prefix: "c\(k)a")
            family.concretes.append(entities.count)
            entities.append(sub)
        }
        return family
    }

    /// The family `e` belongs to, if any.
    func family(of e: Int) -> Family? {
        families.first { $0.parent == e || entities[e].parent == $0.parent }
    }

    /// The entities an object requested as `e` may be (the mapper's choices under it).
    func concretes(for e: Int) -> [Int] {
        guard let family = family(of: e) else { return [e] }
        return e == family.parent ? family.concretes : [e]
    }

    /// `e`'s attributes, inherited ones first.
    func allAttributes(_ e: Int) -> [Attribute] {
        (entities[e].parent.map(allAttributes) ?? []) + entities[e].attributes
    }

    /// `e`'s relationships, inherited ones first.
    func allRelationships(_ e: Int) -> [Relationship] {
        (entities[e].parent.map(allRelationships) ?? []) + entities[e].relationships
    }

    /// Whether a bare identifier can name an object requested as `e` (a single identity
    /// attribute, declared by `e` or inherited).
    func takesBareIdentifiers(_ e: Int) -> Bool {
        entities[e].identity == .single
    }
}
