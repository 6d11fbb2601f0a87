import Testing

@testable import Trellis

@Suite struct EnglishArticleTests {
    @Test(arguments: [
        ("Item", "an Item"), ("integer64", "an integer64"), ("object", "an object"), ("array", "an array"),
        ("Umbrella", "an Umbrella"), ("User", "a User"), ("UUID", "a UUID"), ("uri", "a uri"), ("URL", "a URL"),
        ("Unit", "a Unit"), ("string", "a string"), ("Character", "a Character"), ("", "a"),
    ])
    func theArticleFollowsTheFirstSound(_ word: String, _ expected: String) {
        #expect(withIndefiniteArticle(word) == expected)
    }

    @Test func messagesNameEntitiesAndTypesWithTheRightArticle() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item", attributes: [GraphFixture.attribute("id", .integer64, key: "id")], userInfo: ["identityAttributes": "id"])
        ])
        let context = ObjectContext(store: InMemoryStore(model: model))
        let error = #expect(throws: ImportError.self) { try context.importObjects(from: [true], entity: "Item") }
        #expect(error?.description == "$[0]: expected an Item object or identifier, found true")
    }
}
