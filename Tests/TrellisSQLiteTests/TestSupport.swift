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
    try ObjectModel(entities: [
        EntityDescription(name: "Character", attributes: [
            AttributeDescription(name: "id", type: .string, isOptional: false),
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "realName", type: .string),
            AttributeDescription(name: "createdAt", type: .date),
            AttributeDescription(name: "rating", type: .double),
            AttributeDescription(name: "active", type: .boolean),
        ] + extraCharacterAttributes, relationships: [
            RelationshipDescription(name: "powers", destinationEntity: "Power", isToMany: true),
            RelationshipDescription(name: "publisher", destinationEntity: "Publisher", inverseName: "characters"),
        ], userInfo: ["identityAttributes": "id"]),
        EntityDescription(name: "Power", attributes: [
            AttributeDescription(name: "id", type: .string, isOptional: false),
            AttributeDescription(name: "name", type: .string),
        ], userInfo: ["identityAttributes": "id"]),
        EntityDescription(name: "Publisher", attributes: [
            AttributeDescription(name: "id", type: .string, isOptional: false),
            AttributeDescription(name: "name", type: .string),
        ], relationships: [
            RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true),
        ], userInfo: ["identityAttributes": "id"]),
    ], versionLabel: versionLabel)
}

func tid(_ entity: String, _ n: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: -n) }
