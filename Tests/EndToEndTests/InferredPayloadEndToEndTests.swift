import Foundation
import Testing
import TrellisTestSupport

/// Inferred models on three real payloads (issue 14, point 3), through the built binary: the
/// Twitter search response, the citm catalogue and the GitHub issues pages. For each: the
/// inferred model imports the payload; the stored counts equal counts computed here by
/// walking the JSON (Foundation's `JSONSerialization`, no Trellis code); the export
/// reproduces every mapped value (``ExportReproduction``); a second import is all unchanged.
@Suite struct InferredPayloadEndToEndTests {
    struct Payload: CustomTestStringConvertible, Sendable {
        var name: String
        /// Repository paths.
        var files: [String]
        var at: String?
        var entity: String
        var importOptions: [String] = []
        var testDescription: String { name }
    }

    static let payloads: [Payload] = [
        Payload(name: "twitter", files: ["Tests/Fixtures/corpus/twitter.json"], at: "statuses", entity: "Status"),
        Payload(name: "citm performances", files: ["Tests/Fixtures/corpus/citm_catalog.json"], at: "performances", entity: "Performance"),
        Payload(
            name: "citm events", files: ["Tests/Fixtures/corpus/citm_catalog.json"], at: "events", entity: "Event",
            importOptions: ["--key-attribute", "id"]),
        Payload(name: "github", files: (1...5).map { "Tests/Fixtures/github/issues-page-\($0).json" }, at: nil, entity: "Issue"),
    ]

    // MARK: - Independent counts

    static func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.repositoryRoot().appendingPathComponent(path)))
    }

    static func text(_ value: Any?) -> String { value.map(PayloadWalk.identityText) ?? "nil" }

    /// Entity → count, computed from the payload by rules written here for each API.
    static func independentCounts(_ payload: Payload) throws -> [String: Int] {
        switch payload.name {
        case "twitter":
            let statuses = try #require((try json(payload.files[0]) as? [String: Any])?["statuses"] as? [[String: Any]])
            let all = statuses + statuses.compactMap { $0["retweeted_status"] as? [String: Any] }
            let entities = all.compactMap { $0["entities"] as? [String: Any] }
            let users = Set(all.map { text(($0["user"] as? [String: Any])?["id"]) })
                .union(entities.flatMap { ($0["user_mentions"] as? [[String: Any]] ?? []).map { text($0["id"]) } })
            let hashtags = Set(entities.flatMap { ($0["hashtags"] as? [[String: Any]] ?? []).map { text($0["text"]) } })
            let media = Set(entities.flatMap { ($0["media"] as? [[String: Any]] ?? []).map { text($0["id"]) } })
            return [
                "Status": Set(all.map { text($0["id"]) }).count, "User": users.count, "Hashtag": hashtags.count,
                "Media": media.count,
            ]
        case "citm performances":
            let performances = try #require((try json(payload.files[0]) as? [String: Any])?["performances"] as? [[String: Any]])
            let prices = Set(
                performances.flatMap {
                    ($0["prices"] as? [[String: Any]] ?? []).map {
                        [text($0["amount"]), text($0["audienceSubCategoryId"]), text($0["seatCategoryId"])].joined(separator: "/")
                    }
                })
            let categories = performances.flatMap { $0["seatCategories"] as? [[String: Any]] ?? [] }
            let areas = Set(categories.flatMap { ($0["areas"] as? [[String: Any]] ?? []).map { text($0["areaId"]) } })
            return [
                "Performance": Set(performances.map { text($0["id"]) }).count, "Price": prices.count,
                "SeatCategory": Set(categories.map { text($0["seatCategoryId"]) }).count, "Area": areas.count,
            ]
        case "citm events":
            let events = try #require((try json(payload.files[0]) as? [String: Any])?["events"] as? [String: Any])
            return ["Event": events.count]
        case "github":
            let issues = try payload.files.flatMap { try #require(try json($0) as? [[String: Any]]) }
            var users = Set(issues.map { text(($0["user"] as? [String: Any])?["id"]) })
            users.formUnion(issues.compactMap { ($0["assignee"] as? [String: Any]).map { text($0["id"]) } })
            users.formUnion(issues.flatMap { ($0["assignees"] as? [[String: Any]] ?? []).map { text($0["id"]) } })
            let labels = Set(issues.flatMap { ($0["labels"] as? [[String: Any]] ?? []).map { text($0["id"]) } })
            return ["Issue": Set(issues.map { text($0["id"]) }).count, "User": users.count, "Label": labels.count]
        default:
            Issue.record("no counts for \(payload.name)")
            return [:]
        }
    }

    /// The counts the issue states, to catch a walk gone wrong as well as an import.
    static let statedCounts: [String: [String: Int]] = [
        "twitter": ["Status": 115, "User": 127, "Hashtag": 7],
        "citm performances": ["Performance": 243],
        "citm events": ["Event": 184],
        "github": ["Issue": 13, "User": 1, "Label": 0],
    ]

    // MARK: - The test

    @Test(arguments: payloads)
    func inferredModelImportsExportsAndReimports(_ payload: Payload) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = payload.files.map { Fixtures.repositoryRoot().appendingPathComponent($0).path }
        let at = payload.at.map { ["--at", $0] } ?? []

        let infer = try TrellisProcess.run(["model", "infer"] + files + ["--entity", payload.entity, "-o", "model.json"] + at, in: directory.url)
        #expect(infer.status == 0, "\(infer)")
        let importArguments =
            ["import"] + files + [
                "--model", "model.json", "--entity", payload.entity, "--store", "s.sqlite",
                "--report", "json",
            ] + at + payload.importOptions
        let first = try TrellisProcess.run(importArguments, in: directory.url)
        #expect(first.status == 0, "\(first)")
        #expect(first.stderr == "")

        // Counts: the stated ones, the ones computed here, and every entity of the model by the model-driven walk.
        var walk = try PayloadWalk(model: directory.url.appendingPathComponent("model.json"))
        for file in payload.files {
            var collection = try Self.json(file)
            if let at = payload.at { collection = try #require((collection as? [String: Any])?[at]) }
            let elements = (collection as? [Any]) ?? (collection as? [String: Any]).map { Array($0.values) } ?? []
            try walk.walk(elements, entity: payload.entity)
        }
        let store = directory.url.appendingPathComponent("s.sqlite")
        func stored(_ entity: String) throws -> Int {
            let exists = try SQLiteShell.query(store, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(entity)'")
            return exists == "0" ? 0 : Int(try SQLiteShell.query(store, "SELECT count(*) FROM \"\(entity)\"")) ?? -1
        }
        let independent = try Self.independentCounts(payload)
        for (entity, count) in Self.statedCounts[payload.name] ?? [:] {
            #expect(independent[entity] == count, "\(entity) computed")
        }
        for (entity, count) in independent { #expect(try stored(entity) == count, "\(entity) stored") }
        for entity in walk.entities.keys.sorted() { #expect(try stored(entity) == walk.count(entity), "\(entity) stored, model walk") }

        // The export reproduces every mapped value.
        for entity in walk.entities.keys.sorted() {
            let export = try TrellisProcess.run(
                [
                    "export", "--model", "model.json", "--store", "s.sqlite", "--entity", entity,
                    "--relationships", "ids",
                ], in: directory.url)
            #expect(export.status == 0, "\(export)")
            let objects = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [[String: Any]])
            let problems = ExportReproduction.problems(objects, entity: entity, walk: walk)
            #expect(problems.isEmpty, "\(problems.prefix(5).joined(separator: "\n"))")
        }

        // A second import changes nothing.
        let second = try TrellisProcess.run(importArguments, in: directory.url)
        #expect(second.status == 0, "\(second)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        let counts = try #require(report["entities"] as? [String: [String: Int]])
        #expect(!counts.isEmpty)
        for (entity, c) in counts {
            #expect(c["inserted"] == 0 && c["updated"] == 0 && c["deleted"] == 0, "\(entity): \(c)")
        }
        #expect(counts[payload.entity]?["unchanged"] == independent[payload.entity])
    }
}

/// ``ExportReproduction`` finds what differs (so the payload tests above can fail).
@Suite struct ExportReproductionTests {
    @Test func aChangedValueAMissingObjectAndAWrongLinkAreProblems() throws {
        var walk = try PayloadWalk(model: Fixtures.url("inference/characters.model.json"))
        try walk.walk(try #require(try InferredPayloadEndToEndTests.json("Examples/characters/characters.json") as? [Any]), entity: "Character")
        #expect(walk.count("Character") == 4 && walk.count("Power") == 6 && walk.count("Publisher") == 2)
        let batman: [String: Any] = ["id": "1699", "name": "Batman", "real_name": "Bruce Wayne", "powers": ["4", "9"], "publisher": "10"]
        let others: [[String: Any]] = [
            ["id": "1686", "name": "Robin", "real_name": "Dick Grayson", "powers": ["4", "19"], "publisher": "10"],
            ["id": "1807", "name": "Superman", "real_name": "Clark Kent", "powers": ["2", "3"], "publisher": "10"],
            ["id": "1443", "name": "Spider-Man", "real_name": "Peter Parker", "powers": ["4", "25"], "publisher": "31"],
        ]
        #expect(ExportReproduction.problems([batman] + others, entity: "Character", walk: walk) == [])
        var renamed = batman
        renamed["name"] = "Bat-Man"
        #expect(
            ExportReproduction.problems([renamed] + others, entity: "Character", walk: walk)
                == [#"Character 1699.name: exported Bat-Man, the payload has ["Batman"]"#])
        var relinked = batman
        relinked["powers"] = ["9", "4"]
        #expect(
            ExportReproduction.problems([relinked] + others, entity: "Character", walk: walk)
                == [#"Character 1699.powers: exported ["9", "4"], the payload has [["4", "9"]]"#])
        #expect(
            ExportReproduction.problems(others, entity: "Character", walk: walk)
                == ["Character: 3 objects exported, the payload has 4"])
    }
}
