import Foundation
import Testing

@testable import Trellis

/// Models and helpers shared by the graph, import, export and store tests.
enum GraphFixture {
    static func attribute(
        _ name: String, _ type: AttributeType, key: String? = nil, optional: Bool = true,
        default value: AttributeValue? = nil, transformer: String? = nil
    ) -> AttributeDescription {
        var info: [String: String] = [:]
        if let key { info["JSONKeyPath"] = key }
        if let transformer { info["JSONTransformerName"] = transformer }
        return AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: value, userInfo: info)
    }

    static func relationship(
        _ name: String, _ destination: String, inverse: String? = nil, toMany: Bool = false,
        ordered: Bool = false, key: String? = nil, rule: RelationshipDescription.DeleteRule = .nullify,
        merge: String? = nil
    ) -> RelationshipDescription {
        var info: [String: String] = [:]
        if let key { info["JSONKeyPath"] = key }
        if let merge { info["JSONMergePolicy"] = merge }
        return RelationshipDescription(
            name: name, destinationEntity: destination, inverseName: inverse, isToMany: toMany,
            isOrdered: ordered, deleteRule: rule, userInfo: info)
    }

    /// Groot's test model: Character (ordered powers, publisher), Power, Publisher; ids are integer64.
    static func grootModel(
        powersOrdered: Bool = true, publisherRule: RelationshipDescription.DeleteRule = .nullify,
        charactersRule: RelationshipDescription.DeleteRule = .nullify
    ) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    attribute("id", .integer64, key: "id", optional: false),
                    attribute("name", .string, key: "name"),
                    attribute("realName", .string, key: "real_name"),
                ],
                relationships: [
                    relationship("powers", "Power", inverse: "characters", toMany: true, ordered: powersOrdered, key: "powers"),
                    relationship("publisher", "Publisher", inverse: "characters", key: "publisher", rule: publisherRule),
                ],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power",
                attributes: [attribute("id", .integer64, key: "id", optional: false), attribute("name", .string, key: "name")],
                relationships: [relationship("characters", "Character", inverse: "powers", toMany: true)],
                userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher",
                attributes: [attribute("id", .integer64, key: "id", optional: false), attribute("name", .string, key: "name")],
                relationships: [relationship("characters", "Character", inverse: "publisher", toMany: true, rule: charactersRule)],
                userInfo: ["identityAttributes": "id"]),
        ])
    }

    static let batman: JSONValue = [
        [
            "id": "1699", "name": "Batman", "real_name": "Bruce Wayne",
            "powers": [["id": "4", "name": "Agility"], ["id": "9", "name": "Insanely Rich"]],
            "publisher": ["id": "10", "name": "DC Comics"],
        ]
    ]

    /// All stored objects of `entity` (and sub-entities) as `[identity-or-name: [attribute: value]]` rows, by object ID.
    static func rows(_ store: any PersistentStore, _ entity: String) throws -> [ObjectSnapshot] {
        try store.read { try $0.fetch(entity: entity, matching: nil) }
    }

    /// `name = value` pairs of a stored object's attributes (nil shown as `nil`), for compact assertions.
    static func describe(_ snapshot: ObjectSnapshot, _ model: ObjectModel) -> String {
        guard let entity = model.entity(named: snapshot.id.entityName) else { return "?" }
        var parts: [String] = []
        for (i, a) in entity.attributes.enumerated() {
            parts.append("\(a.name)=\(snapshot.attributes[i]?.description ?? "nil")")
        }
        return parts.joined(separator: " ") + (snapshot.isPlaceholder ? " placeholder" : "")
    }
}

/// A store that counts the calls its sessions receive (to prove set-based lookups).
final class CountingStore: PersistentStore, @unchecked Sendable {
    // SAFETY: counters are only touched by tests on one thread, inside sessions of the wrapped store.
    let base: any PersistentStore
    var identityFetches: [String] = []
    var identityCounts: [Int] = []
    var otherFetches = 0
    var applies = 0
    var changeSets: [ChangeSet] = []
    var model: ObjectModel { base.model }

    init(_ base: any PersistentStore) { self.base = base }

    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try base.read { try body(CountingSession(base: $0, owner: self)) }
    }

    func write<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try base.write { try body(CountingSession(base: $0, owner: self)) }
    }
}

final class CountingSession: StoreSession {
    let base: any StoreSession
    let owner: CountingStore
    init(base: any StoreSession, owner: CountingStore) {
        self.base = base
        self.owner = owner
    }
    var model: ObjectModel { base.model }
    var origin: ChangeOrigin {
        get { base.origin }
        set { base.origin = newValue }
    }
    var pushRules: PushRules {
        get { base.pushRules }
        set { base.pushRules = newValue }
    }
    func outboxEntries() throws -> [OutboxEntry] { try base.outboxEntries() }
    func fetch(entity: String, identities: [[AttributeValue]]) throws -> [ObjectSnapshot] {
        owner.identityFetches.append(entity)
        owner.identityCounts.append(identities.count)
        return try base.fetch(entity: entity, identities: identities)
    }
    func fetch(entity: String, matching predicate: StorePredicate?) throws -> [ObjectSnapshot] {
        owner.otherFetches += 1
        return try base.fetch(entity: entity, matching: predicate)
    }
    func fetch(ids: [ObjectID]) throws -> [ObjectSnapshot] {
        owner.otherFetches += 1
        return try base.fetch(ids: ids)
    }
    func count(entity: String, matching predicate: StorePredicate?) throws -> Int {
        try base.count(entity: entity, matching: predicate)
    }
    func lock(scope: String, exclusive: Bool) throws {
        try base.lock(scope: scope, exclusive: exclusive)
    }
    func apply(_ changes: ChangeSet) throws -> [ObjectID: ObjectID] {
        owner.applies += 1
        owner.changeSets.append(changes)
        return try base.apply(changes)
    }
}

@Suite struct GraphFixtureTests {
    @Test func grootModelResolves() throws {
        let model = try GraphFixture.grootModel()
        #expect(model.entity(named: "Character")?.relationships.map(\.name) == ["powers", "publisher"])
        #expect(model.entity(named: "Power")?.identityStrategy == .unique)
    }
}
