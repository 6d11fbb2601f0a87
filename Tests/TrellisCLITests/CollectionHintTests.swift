import Foundation
import Testing
import Trellis
import TrellisModelFile

@testable import TrellisCLI

/// ``CollectionHint``'s choices on small payloads (the real payloads: HintEndToEndTests).
@Suite struct CollectionHintTests {
    /// `Card` (composite identity suit + rank, and a `name`) and `Tag` (identity `id`, `label`).
    static let model = #"""
        {"format": "trellis-model", "formatVersion": 1, "entities": [
          {"name": "Card", "identityAttributes": ["suit", "rank"], "attributes": [
            {"name": "suit", "type": "string", "jsonKeyPath": "suit"}, {"name": "rank", "type": "integer64", "jsonKeyPath": "rank"},
            {"name": "name", "type": "string", "jsonKeyPath": "name"}]},
          {"name": "Tag", "identityAttributes": ["id"], "attributes": [
            {"name": "id", "type": "integer64", "jsonKeyPath": "id"}, {"name": "label", "type": "string", "jsonKeyPath": "meta.label"}]}
        ]}
        """#

    struct Case: Sendable, CustomTestStringConvertible {
        let entity: String
        var at: String?
        let payload: String
        let hint: String?
        var testDescription: String { "\(entity) \(payload)" }
    }

    static let cases: [Case] = [
        // Deeper than one level, and the suggestion is the full key path from the document.
        Case(
            entity: "Tag", payload: #"{"response": {"count": 2, "docs": [{"id": 1, "meta": {"label": "a"}}, {"id": 2, "meta": null}]}}"#,
            hint: "the payload is an object; its array at 'response.docs' has 2 objects with 'id': did you mean --at response.docs?"),
        Case(
            entity: "Tag", at: "response", payload: #"{"response": {"docs": [{"id": 1, "meta": {"label": null}}]}}"#,
            hint: "the value at 'response' is an object; its array at 'docs' has 1 object with 'id': did you mean --at response.docs?"),
        // A key with a dot is written escaped, as --at reads it.
        Case(
            entity: "Tag", payload: #"{"a.b": [{"id": 1, "meta": {"label": "x"}}]}"#,
            hint: #"the payload is an object; its array at 'a\.b' has 1 object with 'id': did you mean --at a\.b?"#),
        // A composite identity: every identity key path, listed; an object of objects is no
        // suggestion (no --key-attribute fills two attributes).
        Case(
            entity: "Card", payload: #"{"hand": [{"suit": "hearts", "rank": 1, "name": "ace"}, {"suit": "hearts"}]}"#,
            hint: "the payload is an object; its array at 'hand' has 1 object with 'suit' and 'rank': did you mean --at hand?"),
        Case(entity: "Card", payload: #"{"byName": {"ace": {"suit": "hearts", "rank": 1, "name": "ace"}}}"#, hint: nil),
        // The array with more objects wins between equally good ones; nulls are no identity.
        Case(
            entity: "Tag",
            payload: #"{"a": [{"id": 1, "meta": {"label": "x"}}], "b": [{"id": 1, "meta": {"label": "x"}}, {"id": 2, "meta": {"label": "y"}}, {"id": null}]}"#,
            hint: "the payload is an object; its array at 'b' has 2 objects with 'id': did you mean --at b?"),
        // Nothing with the identity: no hint.
        Case(entity: "Tag", payload: #"{"docs": [{"name": 1}], "n": 3}"#, hint: nil),
        // Four keys deep is found, five is deeper than the search goes.
        Case(
            entity: "Tag", payload: #"{"a": {"b": {"c": {"d": [{"id": 1, "meta": {"label": "x"}}]}}}}"#,
            hint: "the payload is an object; its array at 'a.b.c.d' has 1 object with 'id': did you mean --at a.b.c.d?"),
        Case(entity: "Tag", payload: #"{"a": {"b": {"c": {"d": {"e": [{"id": 1, "meta": {"label": "x"}}]}}}}}"#, hint: nil),
    ]

    @Test(arguments: cases) func hint(_ c: Case) throws {
        let model = try ModelFile.read(data: Data(Self.model.utf8)).model
        let entity = try #require(model.entity(named: c.entity))
        let at = try c.at.map { try JSONKeyPath(parsing: $0) }
        var collection = try JSONReader.parse(Data(c.payload.utf8))
        if let at { collection = try #require(at.lookup(in: collection).value) }
        let hint = CollectionHint(entity: entity, at: at)
        #expect(hint.hint(collection: collection, wanted: hint.wantedKeyPaths(missing: nil)) == c.hint)
    }
}
