import Foundation
import TrellisTestSupport

@testable import Trellis

/// A random model within the features an export → import round trip supports, made from a
/// seed (the same seed always gives the same model and payloads: keep this file's choices
/// in order, or the regression seeds in `RoundTripTests` stop naming the cases they found).
///
/// - 2 to 5 entities `E0`…; `E0` has a single identity attribute, the others a single one,
///   a composite one (two attributes) or none.
/// - Attributes of every type, at plain, nested (`meta.a3`, `x.y.a4`) and array-index key
///   paths (`arr5.0.a5` with `arr5.1.a6`, or `list7.0` with `list7.1`); identity attributes
///   at plain, nested or (composite) array-index key paths; some with default values.
/// - Relationships between random entities (self relationships too): to-one, to-many,
///   ordered to-many, with or without an inverse, mapped on one side or both, at plain or
///   nested key paths.
///
/// With `subentities`, a family of sub-entities (``RoundTripModel+Subentities``): identity on
/// the parent or on each sub-entity, an entity mapper reading `kind` (issue 13 point 2).
///
/// Left out, with the reason:
/// - required attributes and relationship counts: validation is issue 13 point 3;
/// - a many-to-many ordered and mapped on both sides: the SQLite store keeps one of the two
///   orders (a known issue, pinned by `RoundTripRuleTests`);
/// - key paths that run through each other (`a` and `a.b`): the exporter refuses values
///   in each other's way by design (`ExportError.keyPathConflict`);
/// - an object without identity attributes shared by several objects: a tree of JSON
///   cannot say that two nested objects without identity are one (an import makes two), so
///   every relationship to an entity without identity has a to-one inverse or none, and
///   such entities are never imported at the top level (an import always inserts them).
struct RoundTripModel {
    enum Identity: Equatable {
        case none
        case single
        case composite
    }

    struct Attribute {
        var name: String
        var type: AttributeType
        var keyPath: String
        var isIdentity: Bool
        var defaultValue: AttributeValue?
        /// The key an entity mapper reads (`kind`): its value names the entity.
        var isMapperKey = false
    }

    struct Relationship {
        var name: String
        var destination: Int
        var isToMany: Bool
        var isOrdered: Bool
        var inverse: String?
        var keyPath: String?
    }

    struct Entity {
        var name: String
        /// Of the entity's objects: declared, or inherited from the parent.
        var identity: Identity
        /// Declared here (inherited ones are the parent's).
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        var parent: Int?
        var isAbstract = false
        /// The mapper key's value for this entity, in a family of sub-entities.
        var kind: String?
        var mapperName: String?
    }

    let seed: UInt64
    var entities: [Entity] = []
    /// Parents with sub-entities (``RoundTripModel+Subentities``).
    var families: [Family] = []
    let model: ObjectModel
    var bindings = MappingBindings()

    /// The entities exported at the top level: those with identity attributes.
    var rootEntities: [Int] { entities.indices.filter { entities[$0].identity != .none } }
    /// The entities payloads import at the top level: those, and abstract parents whose
    /// sub-entities have identity attributes of their own.
    var importedEntities: [Int] { rootEntities + families.filter { !$0.identityOnParent }.map(\.parent) }

    static let valueTypes: [AttributeType] = [
        .string, .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean, .date, .binary, .uuid, .uri, .json,
    ]

    /// The model of `seed`; with `subentities`, a family of a parent and two sub-entities
    /// is added, related to the rest (its choices drawn from another generator, so the rest
    /// of the model is the same).
    init(seed: UInt64, subentities: Bool = false) throws {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        let count = Int(random.next() % 4) + 2
        var entities: [Entity] = []
        for e in 0..<count {
            let identity: Identity
            if e == 0 {
                identity = .single
            } else {
                switch random.next() % 10 {
                case 0...4: identity = .single
                case 5, 6: identity = .composite
                default: identity = .none
                }
            }
            var entity = Entity(name: "E\(e)", identity: identity)
            RoundTripModel.addIdentity(&entity, &random)
            RoundTripModel.addAttributes(&entity, &random)
            entities.append(entity)
        }
        RoundTripModel.addRelationships(&entities, &random)
        if subentities {
            var familyRandom = SplitMix64(seed: seed ^ 0x5AB_E17)
            families.append(RoundTripModel.addFamily(&entities, &familyRandom))
            RoundTripModel.addRelationships(&entities, &familyRandom, prefix: "s")
            bindings = MappingBindings(
                entityMappers: families.map { family in
                    EntityMapper(
                        name: entities[family.parent].mapperName!, keyPath: "kind",
                        table: Dictionary(
                            uniqueKeysWithValues: family.concretes.map { (entities[$0].kind!, entities[$0].name) }))
                })
        }
        self.entities = entities
        model = try ObjectModel(entities: entities.map { RoundTripModel.description($0, in: entities) })
    }

    // MARK: - Making the model

    private static func addIdentity(_ entity: inout Entity, _ random: inout SplitMix64) {
        switch entity.identity {
        case .none:
            break
        case .single:
            let types: [AttributeType] = [.integer64, .integer64, .integer32, .string, .uuid]
            let type = types[Int(random.next() % UInt64(types.count))]
            let keyPath = random.next() % 5 == 0 ? "ref.id" : "id"
            entity.attributes.append(Attribute(name: "id", type: type, keyPath: keyPath, isIdentity: true))
        case .composite:
            let arrayForm = random.next() % 3 == 0
            entity.attributes.append(Attribute(name: "kind", type: .string, keyPath: arrayForm ? "key.0" : "kind", isIdentity: true))
            entity.attributes.append(
                Attribute(
                    name: "number", type: .integer16, keyPath: arrayForm ? "key.1" : "n.number",
                    isIdentity: true))
        }
    }

    static func addAttributes(_ entity: inout Entity, _ random: inout SplitMix64, prefix: String = "a") {
        var i = entity.attributes.count
        let group = prefix == "a" ? "" : prefix
        let groups = Int(random.next() % 4) + 1
        for _ in 0..<groups {
            func type() -> AttributeType { valueTypes[Int(random.next() % UInt64(valueTypes.count))] }
            func defaultValue(_ type: AttributeType) -> AttributeValue? {
                guard random.next() % 5 == 0 else { return nil }
                switch type {
                case .string: return .string("default")
                case .integer16, .integer32, .integer64: return .integer(7)
                case .boolean: return .bool(true)
                default: return nil
                }
            }
            switch random.next() % 6 {
            case 0, 1:
                let t = type()
                entity.attributes.append(Attribute(name: "\(prefix)\(i)", type: t, keyPath: "\(prefix)\(i)", isIdentity: false, defaultValue: defaultValue(t)))
            case 2:
                let t = type()
                entity.attributes.append(
                    Attribute(
                        name: "\(prefix)\(i)", type: t, keyPath: "meta.\(prefix)\(i)", isIdentity: false,
                        defaultValue: defaultValue(t)))
            case 3:
                entity.attributes.append(Attribute(name: "\(prefix)\(i)", type: type(), keyPath: "x.y.\(prefix)\(i)", isIdentity: false))
            case 4:
                // Two attributes inside the elements of an array (`weather.0.description`).
                let first = i
                entity.attributes.append(Attribute(name: "\(prefix)\(i)", type: type(), keyPath: "\(group)arr\(first).0.\(prefix)\(i)", isIdentity: false))
                i += 1
                entity.attributes.append(Attribute(name: "\(prefix)\(i)", type: type(), keyPath: "\(group)arr\(first).1.\(prefix)\(i)", isIdentity: false))
            default:
                // Two attributes that are the elements of an array (`coordinates.0`, `coordinates.1`).
                let first = i
                let t = type()
                entity.attributes.append(Attribute(name: "\(prefix)\(i)", type: t, keyPath: "\(group)list\(first).0", isIdentity: false))
                i += 1
                entity.attributes.append(Attribute(name: "\(prefix)\(i)", type: t, keyPath: "\(group)list\(first).1", isIdentity: false))
            }
            i += 1
        }
    }

    static func addRelationships(_ entities: inout [Entity], _ random: inout SplitMix64, prefix: String = "r") {
        let pairs = Int(random.next() % 5)
        var number = 0
        for _ in 0..<pairs {
            let source = Int(random.next() % UInt64(entities.count))
            let destination = Int(random.next() % UInt64(entities.count))
            let forwardKind = random.next() % 3  // 0 to-one, 1 to-many, 2 ordered to-many
            let hasInverse = random.next() % 2 == 0
            let inverseKind = random.next() % 3
            let forwardMapped = random.next() % 10 != 0
            let inverseMapped = random.next() % 2 == 0
            let nestedKeyPaths = random.next() % 4 == 0
            let forwardName = "\(prefix)\(number)"
            let inverseName = "\(prefix)\(number)i"
            number += 1
            // An object without identity attributes belongs to one object: the relationships
            // leading to it have a to-one inverse or none (see the type's notes).
            if entities[destination].identity == .none, hasInverse, inverseKind != 0 { continue }
            if hasInverse, entities[source].identity == .none, forwardKind != 0 { continue }
            // Known issue (RoundTripRuleTests.bothSidesOfAnOrderedManyToManyKeepTheirOrder): the
            // SQLite store keeps one order of a many-to-many ordered on both sides, so the
            // second side's order, when mapped, does not come back.
            if hasInverse, forwardKind == 2, inverseKind == 2, forwardMapped, inverseMapped { continue }
            func keyPath(_ name: String) -> String { nestedKeyPaths ? "links.\(name)" : name }
            entities[source].relationships.append(
                Relationship(
                    name: forwardName, destination: destination, isToMany: forwardKind != 0, isOrdered: forwardKind == 2,
                    inverse: hasInverse ? inverseName : nil, keyPath: forwardMapped ? keyPath(forwardName) : nil))
            if hasInverse {
                entities[destination].relationships.append(
                    Relationship(
                        name: inverseName, destination: source, isToMany: inverseKind != 0, isOrdered: inverseKind == 2,
                        inverse: forwardName, keyPath: inverseMapped ? keyPath(inverseName) : nil))
            }
        }
    }

    private static func description(_ entity: Entity, in entities: [Entity]) -> EntityDescription {
        var info: [String: String] = [:]
        let identity = entity.attributes.filter(\.isIdentity).map(\.name)
        if !identity.isEmpty { info["identityAttributes"] = identity.joined(separator: " ") }
        if let mapper = entity.mapperName { info["entityMapperName"] = mapper }
        return EntityDescription(
            name: entity.name, parentName: entity.parent.map { entities[$0].name }, isAbstract: entity.isAbstract,
            attributes: entity.attributes.map { a in
                AttributeDescription(
                    name: a.name, type: a.type, isOptional: true, defaultValue: a.defaultValue,
                    userInfo: ["JSONKeyPath": a.keyPath])
            },
            relationships: entity.relationships.map { r in
                RelationshipDescription(
                    name: r.name, destinationEntity: "E\(r.destination)", inverseName: r.inverse,
                    isToMany: r.isToMany, isOrdered: r.isOrdered, deleteRule: .nullify,
                    userInfo: r.keyPath.map { ["JSONKeyPath": $0] } ?? [:])
            },
            userInfo: info)
    }

    // MARK: - Description

    /// The model in a few lines, for failure messages.
    var summary: String {
        entities.map { e in
            let attributes = e.attributes.map { "\($0.name)\($0.isIdentity ? "*" : ""): \($0.type) @\($0.keyPath)" }
            let relationships = e.relationships.map { r in
                "\(r.name) → E\(r.destination)\(r.isToMany ? (r.isOrdered ? " [ordered]" : " [many]") : "")"
                    + (r.inverse.map { " inverse \($0)" } ?? "") + (r.keyPath.map { " @\($0)" } ?? " unmapped")
            }
            let family = (e.parent.map { " : E\($0)" } ?? "") + (e.isAbstract ? " abstract" : "") + (e.kind.map { " kind \($0)" } ?? "")
            return "\(e.name)\(family) (\(e.identity)): " + (attributes + relationships).joined(separator: "; ")
        }.joined(separator: "\n")
    }
}
