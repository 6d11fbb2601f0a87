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

/// Issue 23, point 11: the emulator's generic REST mode answers with ETags as RFC 9110 says
/// (`If-Match` → 412 on a mismatch, nothing applied), replays an `Idempotency-Key`'s first
/// answer, and its `before` fault lands another client's write just before a write.
@Suite struct RESTEmulatorTests {
    @Test func writesAnswerWithETagsAndAStaleIfMatchIs412() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "2"])
        let list = try server.rest("GET", "notes")
        #expect(list.status == 200)
        #expect(list.body["items"]?.arrayValue?.map { $0["id"] } == ["note1", "note2"])
        let read = try server.rest("GET", "notes/note1")
        let etag = try #require(read.etag)
        #expect(read.body == ["id": "note1", "title": "Note 1", "body": "text 1", "etag": .string(etag)])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(list.body["items"]?[0]?["etag"] == .string(etag))

        let stale = try server.rest("PATCH", "notes/note1", body: ["title": "x"], headers: ["If-Match": "\"other\""])
        #expect(stale.status == 412 && stale.etag == etag)
        #expect(stale.body == ["error": "precondition failed", "etag": .string(etag)])
        #expect(try server.data("rest/notes").first?["title"] == "Note 1")  // nothing applied

        let patched = try server.rest("PATCH", "notes/note1", body: ["title": "x", "body": nil], headers: ["If-Match": "\"other\", \(etag)"])
        #expect(patched.status == 200)
        let newTag = try #require(patched.etag)
        #expect(newTag != etag)
        #expect(patched.body == ["id": "note1", "title": "x", "etag": .string(newTag)])
        #expect(try server.rest("PUT", "notes/note1", body: ["body": "only"], headers: ["If-Match": "*"]).body["title"] == nil)  // PUT replaces
        #expect(try server.rest("DELETE", "notes/note2", headers: ["If-Match": etag]).status == 412)
        #expect(try server.rest("DELETE", "notes/note2").status == 204)
        #expect(try server.rest("DELETE", "notes/note2").status == 404)
        #expect(try server.rest("PATCH", "notes/none", body: ["title": "y"]).status == 404)
        #expect(try server.writes().map { $0["method"]?.stringValue ?? "" } == ["PATCH", "PUT", "DELETE"])
    }

    @Test func anIdempotencyKeyReplaysItsFirstAnswer() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "0"])
        let first = try server.rest("POST", "notes", body: ["title": "a"], headers: ["Idempotency-Key": "k-1"])
        #expect(first.status == 201)
        #expect(first.body["id"] == "r000001")
        let again = try server.rest("POST", "notes", body: ["title": "a"], headers: ["Idempotency-Key": "k-1"])
        #expect(again.status == 201 && again.body == first.body && again.etag == first.etag)
        #expect(try server.data("rest/notes").count == 1)
        #expect(try server.rest("POST", "notes", body: ["id": "mine", "title": "b"]).status == 201)
        #expect(try server.rest("POST", "notes", body: ["id": "mine", "title": "c"]).status == 409)
        #expect(try server.data("rest/notes").map { $0["title"] } == ["a", "b"])
    }

    @Test func aBeforeFaultLandsAnotherWriteFirst() throws {
        let server = try TestServer(["--heroes", "0", "--ties", "0", "--notes", "1"])
        let etag = try #require(try server.rest("GET", "notes/note1").etag)
        try server.faults([
            ["match": "/rest/notes/note1", "method": "PATCH", "before": [["op": "update", "class": "rest/notes", "id": "note1", "set": ["title": "theirs"]]]]
        ])
        let write = try server.rest("PATCH", "notes/note1", body: ["body": "mine"], headers: ["If-Match": etag])
        #expect(write.status == 412)
        #expect(try server.data("rest/notes").first?["title"] == "theirs")
        #expect(try server.data("rest/notes").first?["body"] == "text 1")
    }
}
