import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// `trellis import/export` on the Twitter example, checked against counts computed
/// independently with Python (one-liners in the comments).
@Suite struct TwitterEndToEndTests {
    static let importArguments = [
        "import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/model.json",
        "--entity", "Status", "--at", "statuses",
    ]

    /// A temporary directory holding `Examples/twitter/`.
    static func workspace() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.copyExample("twitter/model.json")
        try directory.copyExample("twitter/twitter.json")
        return directory
    }

    // python3 -c 'import json; s=json.load(open("Examples/twitter/twitter.json"))["statuses"]; a=s+[x["retweeted_status"] for x in s if "retweeted_status" in x]; print(len({x["id"] for x in a}))'
    // → 115 (100 listed statuses + 15 retweeted statuses not in the list)
    static let statusCount = 115
    // python3 -c 'import json; s=json.load(open("Examples/twitter/twitter.json"))["statuses"]; a=s+[x["retweeted_status"] for x in s if "retweeted_status" in x]; print(len({x["user"]["id"] for x in a} | {m["id"] for x in a for m in x["entities"]["user_mentions"]}))'
    // → 127 (115 full users + 12 known only from mentions)
    static let userCount = 127
    // python3 -c 'import json; s=json.load(open("Examples/twitter/twitter.json"))["statuses"]; a=s+[x["retweeted_status"] for x in s if "retweeted_status" in x]; print(len({h["text"] for x in a for h in x["entities"]["hashtags"]}))'
    // → 7
    static let hashtagCount = 7

    @Test func importStoresEveryStatusUserAndHashtag() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try TrellisProcess.run(Self.importArguments, in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(4)) == [
                "entity   inserted   updated  unchanged   deleted",
                "Status        115         0          0         0",
                "User          127         0          0         0",
                "Hashtag         7         0          0         0",
            ])
        #expect(lines.count == 5 && lines[4].hasPrefix("imported 100 elements from 1 file into trellis.sqlite in "))

        let store = directory.url.appendingPathComponent("trellis.sqlite")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Status") == "\(Self.statusCount)")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM User") == "\(Self.userCount)")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Hashtag") == "\(Self.hashtagCount)")
        #expect(try SQLiteShell.query(store, "SELECT count(*) FROM Status WHERE _placeholder <> 0") == "0")
        // 64-bit ids stay exact (505874924095815681 > 2^53; a Double would give …680).
        #expect(try SQLiteShell.query(store, "SELECT id FROM Status WHERE id = 505874924095815681") == "505874924095815681")
        #expect(try SQLiteShell.query(store, "SELECT max(id) FROM Status") == "505874924095815681")
    }

    @Test func mentionsLinkToUsersAndNeverBlankThemOut() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url).status == 0)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        // Status 505874924095815681 mentions user 866260188 (@aym0566x), known only from mentions.
        let mentioned = try SQLiteShell.query(
            store,
            """
            SELECT u.id, u.screenName, u.name FROM "Status.mentionedUsers" j JOIN Status s ON s._pk = j.source \
            JOIN User u ON u._pk = j.destination WHERE s.id = 505874924095815681
            """)
        #expect(mentioned == "866260188|aym0566x|前田あゆみ")
        // Users that are both full users and mentioned keep their full data (followers count).
        // python3 -c 'import json; s=json.load(open("Examples/twitter/twitter.json"))["statuses"]; a=s+[x["retweeted_status"] for x in s if "retweeted_status" in x]; u={x["user"]["id"] for x in a}; print(len(u & {m["id"] for x in a for m in x["entities"]["user_mentions"]}))'
        // → 16
        let fullAndMentioned = try SQLiteShell.query(
            store,
            """
            SELECT count(DISTINCT u._pk) FROM User u JOIN "Status.mentionedUsers" j ON j.destination = u._pk \
            WHERE u.followersCount IS NOT NULL
            """)
        #expect(fullAndMentioned == "16")
    }

    @Test func secondImportReportsEveryObjectUnchanged() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url).status == 0)
        let again = try TrellisProcess.run(Self.importArguments + ["--report", "json"], in: directory.url)
        #expect(again.status == 0, "\(again)")
        let report = try JSONReader.parse(again.stdout)
        #expect(
            report["entities"] == [
                "Status": ["inserted": 0, "updated": 0, "unchanged": 115, "deleted": 0],
                "User": ["inserted": 0, "updated": 0, "unchanged": 127, "deleted": 0],
                "Hashtag": ["inserted": 0, "updated": 0, "unchanged": 7, "deleted": 0],
            ])
        #expect(report["seconds"]?.doubleValue.map { $0 >= 0 } == true)
        #expect(again.stdout.hasSuffix("}\n") && !again.stdout.dropLast().contains("\n"))
    }

    @Test func exportReproducesTheMappedFieldsOfAStatus() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url).status == 0)
        let result = try TrellisProcess.run(
            [
                "export", "--model", "Examples/twitter/model.json", "--entity", "Status",
                "--where", "id=505874924095815681",
            ], in: directory.url)
        #expect(result.status == 0, "\(result)")
        let exported = try JSONReader.parse(result.stdout)
        let original = try JSONReader.parse(Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json")))
        let status = try #require(original["statuses"]?[0])
        let object = try #require(exported[0])
        #expect(exported.arrayValue?.count == 1)
        for key in [
            "id", "text", "created_at", "source", "lang", "retweet_count", "favorite_count",
            "in_reply_to_status_id", "in_reply_to_screen_name",
        ] {
            #expect(object[key] == status[key], "\(key)")
        }
        // Nested (the default): the user in full, whose statuses lead back to this one (its
        // identifier: it is written further up); the mentioned user in full.
        let user = try #require(object["user"])
        for key in [
            "id", "name", "screen_name", "location", "description", "followers_count", "friends_count",
            "statuses_count", "created_at", "verified", "lang", "profile_image_url_https",
        ] {
            #expect(user[key] == status["user"]?[key], "user.\(key)")
        }
        #expect(user["statuses"] == [505_874_924_095_815_681])
        #expect(object["entities"]?["user_mentions"]?[0]?["id"] == 866_260_188)
        #expect(object["entities"]?["user_mentions"]?[0]?["screen_name"] == "aym0566x")
        #expect(object["entities"]?["hashtags"] == [])

        let ids = try TrellisProcess.run(
            [
                "export", "--model", "Examples/twitter/model.json", "--entity", "Status",
                "--where", "id=505874924095815681", "--relationships", "ids",
            ], in: directory.url)
        let identifiers = try #require(try JSONReader.parse(ids.stdout)[0])
        #expect(identifiers["user"] == status["user"]?["id"])
        #expect(identifiers["entities"]?["user_mentions"] == [866_260_188])
    }

    /// The README's export examples print what the README shows: `User.statuses` nested,
    /// its `user` cut back to an identifier; with `--relationships ids`, identifiers.
    @Test func readmeExportExamplesNestOrWriteIdentifiers() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url).status == 0)
        let arguments = ["export", "--model", "Examples/twitter/model.json", "--entity", "User", "--where", "id=2243896200"]
        let nested = try TrellisProcess.run(arguments + ["--relationships", "nested", "--pretty"], in: directory.url)
        #expect(nested == TrellisProcess.Result(status: 0, stdout: Self.readmeUser, stderr: ""))
        #expect(try TrellisProcess.run(arguments + ["--pretty"], in: directory.url) == nested)
        let ids = try TrellisProcess.run(arguments + ["--relationships", "ids"], in: directory.url)
        #expect(
            ids
                == TrellisProcess.Result(
                    status: 0,
                    stdout: #"""
                        [{"id":2243896200,"name":"知らぬが仏bot","screen_name":"siranuga_hotoke","location":"奈良・京都辺り",\#
                        "description":"知らぬが仏な情報をお伝えします。","followers_count":3288,"friends_count":3482,"statuses_count":1570,\#
                        "created_at":"Fri Dec 13 13:16:35 +0000 2013","verified":false,"lang":"ja",\#
                        "profile_image_url_https":"https://pbs.twimg.com/profile_images/378800000866399372/ypy5NnPe_normal.png",\#
                        "statuses":[505858599411666944]}]

                        """#, stderr: ""))
    }

    /// The README's example output (README.md, "Export").
    static let readmeUser = #"""
        [
          {
            "id": 2243896200,
            "name": "知らぬが仏bot",
            "screen_name": "siranuga_hotoke",
            "location": "奈良・京都辺り",
            "description": "知らぬが仏な情報をお伝えします。",
            "followers_count": 3288,
            "friends_count": 3482,
            "statuses_count": 1570,
            "created_at": "Fri Dec 13 13:16:35 +0000 2013",
            "verified": false,
            "lang": "ja",
            "profile_image_url_https": "https://pbs.twimg.com/profile_images/378800000866399372/ypy5NnPe_normal.png",
            "statuses": [
              {
                "id": 505858599411666944,
                "text": "ゴキブリは一世帯に平均して480匹いる。",
                "created_at": "Sat Aug 30 23:24:23 +0000 2014",
                "source": "<a href=\"http://twittbot.net/\" rel=\"nofollow\">twittbot.net</a>",
                "lang": "ja",
                "retweet_count": 1,
                "favorite_count": 0,
                "in_reply_to_status_id": null,
                "in_reply_to_screen_name": null,
                "user": 2243896200,
                "entities": {
                  "hashtags": [],
                  "user_mentions": []
                },
                "retweeted_status": null
              }
            ]
          }
        ]

        """#

    @Test func aBadValueFailsNamingFilePathEntityAndAttributeAndChangesNothing() throws {
        let directory = try Self.workspace()
        defer { directory.remove() }
        #expect(try TrellisProcess.run(Self.importArguments, in: directory.url).status == 0)
        let store = directory.url.appendingPathComponent("trellis.sqlite")
        let before = try SQLiteShell.query(store, "SELECT (SELECT count(*) FROM Status), (SELECT count(*) FROM User), max(id) FROM Status")

        // A copy of the payload with one string where a number belongs, in the middle.
        var payload = try JSONReader.parse(Data(contentsOf: directory.url.appendingPathComponent("Examples/twitter/twitter.json")))
        try JSONKeyPath(parsing: "statuses.50.user.id").set("abc", in: &payload)
        try Data(JSONWriter.bytes(for: payload)).write(to: directory.url.appendingPathComponent("bad.json"))

        let result = try TrellisProcess.run(
            [
                "import", "bad.json", "--model", "Examples/twitter/model.json",
                "--entity", "Status", "--at", "statuses",
            ], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr.hasPrefix("error: bad.json: $.statuses[50].user.id: cannot store \"abc\" in User.id (integer64)"),
            "\(result.stderr)")
        #expect(
            try SQLiteShell.query(store, "SELECT (SELECT count(*) FROM Status), (SELECT count(*) FROM User), max(id) FROM Status")
                == before)
    }

    @Test func theQuickStartCommandOfTheReadme() throws {
        // The README's first two commands, exactly as written: the import of a real payload
        // into the default store, then the test command.
        let root = Fixtures.repositoryRoot()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = readme.split(separator: "\n").filter { $0.hasPrefix("swift ") }
        #expect(commands.count >= 2)
        let command = try #require(commands.first)
        #expect(
            command == "swift run trellis import Examples/twitter/twitter.json --model Examples/twitter/model.json "
                + "--entity Status --at statuses")
        #expect(commands.dropFirst().first == "swift test")
        let arguments = command.split(separator: " ").dropFirst(3).map(String.init)
        let directory = try Self.workspace()
        defer { directory.remove() }
        let result = try TrellisProcess.run(arguments, in: directory.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Status        115         0          0         0\n"))
        #expect(try SQLiteShell.query(directory.url.appendingPathComponent("trellis.sqlite"), "SELECT count(*) FROM Status") == "115")
    }
}
