import Foundation
import Testing

@testable import Trellis

/// Objects read from records with the same keys share one ``JSONObjectShape``; changing
/// one object never changes another, and lookups through a ``JSONObject/KeyPositionCache``
/// follow the shape of each object asked.
@Suite struct JSONObjectShapeTests {
    static func records() throws -> [JSONObject] {
        let value = try JSONReader.parse(#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"name": "c", "id": 3}, {"id": 4, "name": "d"}]"#)
        return try #require(value.arrayValue).map { try #require($0.objectValue) }
    }

    @Test func recordsWithTheSameKeysShareAShape() throws {
        let r = try Self.records()
        #expect(r[0].hasSameShape(as: r[1]))
        #expect(r[0].hasSameShape(as: r[3]))
        #expect(!r[0].hasSameShape(as: r[2]))
        #expect(r[2].keys == ["name", "id"])
        // Same members in another order: equal (and equal hashes), not identical.
        let reordered = try #require(try JSONReader.parse(#"{"name": "a", "id": 1}"#).objectValue)
        #expect(reordered == r[0])
        #expect(reordered.hashValue == r[0].hashValue)
        #expect(!JSONValue.object(reordered).isIdentical(to: .object(r[0])))
        #expect(JSONValue.object(r[3]).isIdentical(to: try JSONReader.parse(#"{"id": 4, "name": "d"}"#)))
    }

    @Test func changingOneObjectLeavesTheOthersSharingItsShape() throws {
        let r = try Self.records()
        var first = r[0]
        first["extra"] = true
        first["name"] = nil
        var second = r[1]
        second["id"] = 20
        #expect(first.keys == ["id", "extra"])
        #expect(JSONValue.object(first) == ["id": 1, "extra": true])
        #expect(second.keys == ["id", "name"])
        #expect(JSONValue.object(second) == ["id": 20, "name": "b"])
        #expect(r[0].keys == ["id", "name"] && r[1].keys == ["id", "name"] && r[3].keys == ["id", "name"])
        #expect(JSONValue.object(r[0]) == ["id": 1, "name": "a"])
        // An object built member by member grows its own shape in place.
        var built = JSONObject()
        for i in 0..<20 { built.append(key: "k\(i)", value: JSONValue(i)) }
        built.append(key: "k3", value: "three")
        #expect(built.count == 20 && built["k19"] == 19 && built["k3"] == "three" && built.position(of: "k18") == 18)
        #expect(JSONObject().keys.isEmpty && JSONObject().isEmpty)
    }

    @Test func cachedLookupsFollowEachObjectsShape() throws {
        let r = try Self.records()
        var name = JSONObject.KeyPositionCache(key: "name")
        var id = JSONObject.KeyPositionCache(key: "id")
        #expect(r.map { $0.value(cachedIn: &name) } == ["a", "b", "c", "d"])
        #expect(r.map { $0.value(cachedIn: &id) } == [1, 2, 3, 4])
        var missing = JSONObject.KeyPositionCache(key: "nope")
        #expect(r.map { $0.value(cachedIn: &missing) } == [Optional<JSONValue>.none, nil, nil, nil])
        #expect(r[0].value(cachedIn: &missing) == Optional<JSONValue>.none)
        // A shared shape is copied before a change, so a cached position stays right.
        var changed = r[0]
        var name2 = JSONObject.KeyPositionCache(key: "name")
        #expect(changed.value(cachedIn: &name2) == "a")
        changed["id"] = nil
        #expect(changed.value(cachedIn: &name2) == "a")
        #expect(r[1].value(cachedIn: &name2) == "b")
        // Through a key path (the importer's lookups): missing stays missing, null is null.
        let path: JSONKeyPath = "name"
        var viaPath = path.firstKeyCache()
        let nullName = try #require(try JSONReader.parse(#"{"id": 9, "name": null}"#).objectValue)
        #expect(path.lookup(in: r[1], cache: &viaPath) == .present("b"))
        #expect(path.lookup(in: nullName, cache: &viaPath) == .null)
        #expect(path.lookup(in: try #require(try JSONReader.parse(#"{"id": 9}"#).objectValue), cache: &viaPath) == .missing)
    }

    /// Duplicate keys keep the first position and the last value; large objects are indexed.
    @Test func duplicateKeysAndLargeObjects() throws {
        let duplicate = try #require(try JSONReader.parse(#"[{"a": 1, "b": 2, "a": 3}, {"a": 1, "b": 2}]"#).arrayValue)
        #expect(duplicate[0].objectValue?.keys == ["a", "b"])
        #expect(duplicate[0] == ["a": 3, "b": 2])
        #expect(duplicate[1] == ["a": 1, "b": 2])
        let keys = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let large = try #require(try JSONReader.parse("[{\(keys)}, {\(keys), \"k7\": -7}]").arrayValue)
        #expect(large[0].objectValue?.count == 40 && large[0]["k39"] == 39)
        #expect(large[1].objectValue?.count == 40 && large[1]["k7"] == -7 && large[1].objectValue?.position(of: "k7") == 7)
    }
}
