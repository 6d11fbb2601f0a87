import Foundation
import Trellis

@testable import TrellisSQLite

/// A fresh directory under the system temporary directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func cleanup() { try? FileManager.default.removeItem(at: url) }
}

extension SQLiteStore {
    /// Runs raw SQL outside a session and returns every row, each column as text (nil for NULL).
    func rows(_ sql: String) throws -> [[String?]] {
        try withConnection { connection in
            let statement = try connection.makeStatement(sql)
            var rows: [[String?]] = []
            let count = statement.columnCount
            while try statement.step() {
                rows.append((0..<count).map { statement.isNull($0) ? nil : statement.string($0) })
            }
            return rows
        }
    }

    /// Runs raw SQL statements (DDL, triggers) outside a session.
    func execute(_ sql: String) throws {
        try withConnection { try $0.execute(sql) }
    }
}

/// The model of the benchmark: characters with powers (to-many, no inverse) and a
/// publisher (to-one, inverse to-many `characters`).
func charactersModel(versionLabel: String? = nil, extraCharacterAttributes: [AttributeDescription] = []) throws -> ObjectModel {
    try ObjectModel(
        entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    AttributeDescription(name: "id", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "realName", type: .string),
                    AttributeDescription(name: "createdAt", type: .date),
                    AttributeDescription(name: "rating", type: .double),
                    AttributeDescription(name: "active", type: .boolean),
                ] + extraCharacterAttributes,
                relationships: [
                    RelationshipDescription(name: "powers", destinationEntity: "Power", isToMany: true),
                    RelationshipDescription(name: "publisher", destinationEntity: "Publisher", inverseName: "characters"),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power",
                attributes: [
                    AttributeDescription(name: "id", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Publisher",
                attributes: [
                    AttributeDescription(name: "id", type: .string, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
        ], versionLabel: versionLabel)
}

func tid(_ entity: String, _ n: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: -n) }

/// Animal (abstract, identity id) with sub-entities Dog and Cat, which both declare `color`
/// (Cat's gets the qualified column `Cat.color`); Seat with a composite identity and an
/// ordered to-many; Vehicle without identity whose sub-entity Car introduces identity on the
/// inherited `plate` (a partial unique index), with SportsCar under Car and Bike beside it.
func animalsModel() throws -> ObjectModel {
    try ObjectModel(entities: [
        EntityDescription(
            name: "Animal", isAbstract: true,
            attributes: [
                AttributeDescription(name: "id", type: .integer64),
                AttributeDescription(name: "name", type: .string),
            ], userInfo: ["identityAttributes": "id"]),
        EntityDescription(
            name: "Dog", parentName: "Animal",
            attributes: [
                AttributeDescription(name: "barks", type: .boolean),
                AttributeDescription(name: "color", type: .string),
            ]),
        EntityDescription(
            name: "Cat", parentName: "Animal",
            attributes: [
                AttributeDescription(name: "lives", type: .integer16),
                AttributeDescription(name: "color", type: .integer16),
            ],
            relationships: [
                RelationshipDescription(name: "friend", destinationEntity: "Animal")
            ]),
        EntityDescription(
            name: "Seat",
            attributes: [
                AttributeDescription(name: "row", type: .string),
                AttributeDescription(name: "number", type: .integer32),
            ],
            relationships: [
                RelationshipDescription(name: "tags", destinationEntity: "Tag", isToMany: true, isOrdered: true)
            ], userInfo: ["identityAttributes": "row, number"]),
        EntityDescription(
            name: "Tag",
            attributes: [
                AttributeDescription(name: "label", type: .string)
            ], userInfo: ["identityAttributes": "label"]),
        EntityDescription(
            name: "Vehicle",
            attributes: [
                AttributeDescription(name: "plate", type: .string)
            ]),
        EntityDescription(
            name: "Car", parentName: "Vehicle",
            attributes: [
                AttributeDescription(name: "doors", type: .integer16)
            ], userInfo: ["identityAttributes": "plate"]),
        EntityDescription(name: "SportsCar", parentName: "Car"),
        EntityDescription(name: "Bike", parentName: "Vehicle"),
    ])
}

/// Names that need quoting: an entity called `Order` with attributes `select` and `a"b;c`, an
/// entity called `a"b;c` with an attribute `_pk` (a system column name) and `Select` (the
/// same as `select` to SQLite, in another table).
func quotingModel() throws -> ObjectModel {
    try ObjectModel(entities: [
        EntityDescription(
            name: "Order",
            attributes: [
                AttributeDescription(name: "select", type: .string),
                AttributeDescription(name: "a\"b;c", type: .integer64),
            ],
            relationships: [
                RelationshipDescription(name: "group", destinationEntity: "a\"b;c"),
                RelationshipDescription(name: "items", destinationEntity: "a\"b;c", isToMany: true),
            ], userInfo: ["identityAttributes": "select"]),
        EntityDescription(
            name: "a\"b;c",
            attributes: [
                AttributeDescription(name: "from", type: .string),
                AttributeDescription(name: "_pk", type: .integer64),
                AttributeDescription(name: "Select", type: .string),
            ], userInfo: ["identityAttributes": "from"]),
    ])
}
