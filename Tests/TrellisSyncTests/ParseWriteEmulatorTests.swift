import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// Issue 23, point 11: the loopback server's emulator of the Parse write API answers as Parse
/// Server does (routes, error codes, X-Parse-Request-Id, custom object ids, batches) and its
/// faults are switchable per test.
@Suite struct ParseWriteEmulatorTests {
    @Test func createsUpdatesAndDeletesAnswerAsParseDoes() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0"])
        let created = try server.parse("POST", "classes/Note", body: ["title": "a"])
        #expect(created.status == 201)
        let id = try #require(created.body["objectId"]?.stringValue)
        let createdAt = try #require(created.body["createdAt"]?.stringValue)
        #expect(id == "n000000001")

        let updated = try server.parse("PUT", "classes/Note/\(id)", body: ["title": "b", "gone": ["__op": "Delete"]])
        #expect(updated.status == 200)
        let updatedAt = try #require(updated.body["updatedAt"]?.stringValue)
        #expect(updatedAt > createdAt)
        #expect(try server.data("Note") == [["objectId": .string(id), "createdAt": .string(createdAt), "updatedAt": .string(updatedAt), "title": "b"]])
        #expect(try server.parse("GET", "classes/Note/\(id)").body["title"] == "b")

        #expect(try server.parse("PUT", "classes/Note/missing", body: ["title": "c"]).body == ["code": 101, "error": "Object not found."])
        #expect(try server.parse("DELETE", "classes/Note/\(id)").body == [:])
        #expect(try server.parse("DELETE", "classes/Note/\(id)").status == 404)
        #expect(try server.data("Note") == [])
        #expect(try server.writes().map { $0["method"]?.stringValue ?? "" } == ["POST", "PUT", "DELETE"])
    }

    @Test func customObjectIdsNeedTheOptionAndADuplicateIs137() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0"])
        #expect(
            try server.parse("POST", "classes/Note", body: ["objectId": "mine", "title": "a"]).body
                == ["code": 105, "error": "objectId is an invalid field name."])
        try server.configure(["allowCustomObjectId": true])
        #expect(try server.parse("POST", "classes/Note", body: ["objectId": "mine", "title": "a"]).body["objectId"] == "mine")
        let again = try server.parse("POST", "classes/Note", body: ["objectId": "mine", "title": "b"])
        #expect(again.status == 400)
        #expect(again.body["code"] == 137)
        #expect(try server.data("Note").map { $0["title"] } == ["a"])
    }

    @Test func aRepeatedRequestIdIs159AndNothingIsReplayed() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0"])
        let first = try server.parse("POST", "classes/Note", body: ["title": "a"], headers: ["X-Parse-Request-Id": "r-1"])
        #expect(first.status == 201)
        let repeated = try server.parse("POST", "classes/Note", body: ["title": "a"], headers: ["X-Parse-Request-Id": "r-1"])
        #expect(repeated.status == 400)
        #expect(repeated.body == ["code": 159, "error": "Duplicate request"])
        // Recorded before processing: a request that failed still blocks its id.
        #expect(try server.parse("POST", "classes/Note", body: ["objectId": "x"], headers: ["X-Parse-Request-Id": "r-2"]).body["code"] == 105)
        #expect(try server.parse("POST", "classes/Note", body: ["title": "b"], headers: ["X-Parse-Request-Id": "r-2"]).body["code"] == 159)
        #expect(try server.data("Note").count == 1)
        // Inside a batch every sub-request carries the batch's id: only the first create passes.
        let batch = try server.parse(
            "POST", "batch",
            body: [
                "requests": [
                    ["method": "POST", "path": "/parse/classes/Note", "body": ["title": "x"]],
                    ["method": "POST", "path": "/parse/classes/Note", "body": ["title": "y"]],
                ]
            ], headers: ["X-Parse-Request-Id": "r-3"])
        #expect(batch.body.arrayValue?.count == 2)
        #expect(batch.body[1] == ["error": ["code": 159, "error": "Duplicate request"]])
        #expect(try server.data("Note").count == 2)
    }

    @Test func aBatchAnswersOneResultPerOperationAndAnInjectedErrorFailsOnlyItsOperation() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0"])
        try server.faults([["match": "batch", "method": "POST", "opError": ["index": 1, "code": 142, "error": "title is required"]]])
        let batch = try server.parse(
            "POST", "batch",
            body: [
                "requests": [
                    ["method": "POST", "path": "/parse/classes/Note", "body": ["title": "a"]],
                    ["method": "POST", "path": "/parse/classes/Note", "body": ["title": "b"]],
                    ["method": "DELETE", "path": "/parse/classes/Note/none"],
                    ["method": "POST", "path": "classes/Note", "body": ["title": "c"]],
                ]
            ])
        #expect(batch.status == 200)
        let results = try #require(batch.body.arrayValue)
        #expect(results.count == 4)
        #expect(results[0]["success"]?["objectId"] == "n000000001")
        #expect(results[1] == ["error": ["code": 142, "error": "title is required"]])
        #expect(results[2] == ["error": ["code": 101, "error": "Object not found."]])
        #expect(results[3] == ["error": ["code": 107, "error": "cannot route batch path classes/Note"]])
        #expect(try server.data("Note").map { $0["title"] } == ["a"])
    }

    @Test func faultsCommitThenDropAndAnswer429WithRetryAfter() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0"])
        try server.faults([["match": "classes/Note", "method": "POST", "drop": true]])
        #expect(throws: TestServerError.self) { try server.parse("POST", "classes/Note", body: ["title": "kept"]) }
        #expect(try server.data("Note").map { $0["title"] } == ["kept"])  // committed, though the answer was lost

        try server.faults([["match": "batch", "method": "POST", "status": 429, "retryAfter": "3", "times": 1]])
        let limited = try server.parse("POST", "batch", body: ["requests": [["method": "POST", "path": "/parse/classes/Note", "body": ["title": "x"]]]])
        #expect(limited.status == 429)
        #expect(try server.data("Note").count == 1)  // nothing applied
        let next = try server.parse("POST", "batch", body: ["requests": [["method": "POST", "path": "/parse/classes/Note", "body": ["title": "x"]]]])
        #expect(next.status == 200)
        #expect(try server.data("Note").count == 2)
    }
}
