import Foundation
import Testing
import Trellis
import TrellisTestSupport
@testable import TrellisPostgres

@Suite struct PostgresSchemaTests {
    @Test func printIt() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Character", attributes: [
                AttributeDescription(name: "id", type: .string, isOptional: false),
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "createdAt", type: .date),
                AttributeDescription(name: "rating", type: .double),
                AttributeDescription(name: "price", type: .decimal),
            ], relationships: [
                RelationshipDescription(name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true),
                RelationshipDescription(name: "publisher", destinationEntity: "Publisher", inverseName: "characters"),
            ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Power", attributes: [AttributeDescription(name: "id", type: .string)],
                              relationships: [RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "powers", isToMany: true)],
                              userInfo: ["identityAttributes": "id"]),
            EntityDescription(name: "Publisher", attributes: [AttributeDescription(name: "id", type: .string)],
                              relationships: [RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "publisher", isToMany: true)],
                              userInfo: ["identityAttributes": "id"]),
        ])
        for s in try PostgresStore.schemaStatements(for: model) { print(s + ";") }
    }
}
