import Foundation
import Testing
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// The whole output for real payloads, byte for byte (docs/ModelInference.md, "Determinism"):
/// `Tests/Fixtures/inference/*.model.json`. To re-record after a deliberate rule change, run
/// `trellis model infer … -o Tests/Fixtures/inference/NAME.model.json` with the arguments below.
@Suite struct InferenceGoldenTests {
    struct Golden: CustomTestStringConvertible, Sendable {
        var name: String
        var inputs: [String]
        var at: String?
        var entity: String
        var testDescription: String { name }
    }

    static let goldens: [Golden] = [
        Golden(name: "twitter", inputs: ["Tests/Fixtures/corpus/twitter.json"], at: "statuses", entity: "Status"),
        Golden(name: "citm-performances", inputs: ["Tests/Fixtures/corpus/citm_catalog.json"], at: "performances", entity: "Performance"),
        Golden(name: "citm-events", inputs: ["Tests/Fixtures/corpus/citm_catalog.json"], at: "events", entity: "Event"),
        Golden(name: "github-issues", inputs: (1...5).map { "Tests/Fixtures/github/issues-page-\($0).json" }, at: nil, entity: "Issue"),
        Golden(name: "characters", inputs: ["Examples/characters/characters.json"], at: nil, entity: "Character"),
    ]

    static func infer(_ golden: Golden) throws -> Data {
        let inference = ModelInference(rootEntity: golden.entity)
        for input in golden.inputs {
            let url = InferenceSamples.repositoryFile(input)
            try inference.add(contentsOf: url, at: golden.at.map { JSONKeyPath(stringLiteral: $0) }, source: input)
        }
        return try inference.inferredModel().file.data()
    }

    @Test(arguments: goldens)
    func inferredModelIsTheGoldenFile(_ golden: Golden) throws {
        let expected = try Fixtures.data("inference/\(golden.name).model.json")
        let first = try Self.infer(golden)
        #expect(String(decoding: first, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(try Self.infer(golden) == first)
    }

    @Test func theGoldenModelsAreValidModelFiles() throws {
        for golden in Self.goldens {
            let file = try ModelFile.read(data: try Fixtures.data("inference/\(golden.name).model.json"))
            #expect(file.model.entity(named: golden.entity) != nil)
        }
    }
}

/// docs/ModelInference.md, "Bad input".
@Suite struct InferenceBadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var json: String
        var code: ModelInferenceError.Code
        var description: String
        var testDescription: String { json }
    }

    static let cases: [Case] = [
        Case(json: "[]", code: .noObjects, description: "sample.json: $: no objects to infer Status from: found an empty array"),
        Case(json: "{}", code: .noObjects, description: "sample.json: $: no objects to infer Status from: found an empty object"),
        Case(
            json: #"[{"id": 1}, 3]"#, code: .notAnObject,
            description: "sample.json: $[1]: expected an object (each element becomes a Status), found a number"),
        Case(
            json: #"[[{"id": 1}]]"#, code: .notAnObject,
            description: "sample.json: $[0]: expected an object (each element becomes a Status), found an array"),
        Case(
            json: #""statuses""#, code: .notAnObject,
            description: "sample.json: $: expected an array or object of Status objects, found a string"),
        Case(json: "null", code: .notAnObject, description: "sample.json: $: expected an array or object of Status objects, found null"),
    ]

    @Test(arguments: cases)
    func badCollection(_ c: Case) throws {
        let inference = ModelInference(rootEntity: "Status")
        let error = try #require(throws: ModelInferenceError.self) {
            try inference.add(collection: try JSONReader.parse(Data(c.json.utf8)), at: .root, source: "sample.json")
        }
        #expect(error.code == c.code)
        #expect(error.description == c.description)
    }

    @Test func nothingAddedIsNoObjects() throws {
        let error = try #require(throws: ModelInferenceError.self) { try ModelInference(rootEntity: "Status").inferredModel() }
        #expect(error.code == .noObjects)
    }

    @Test func aKeyPathThatSelectsNothingIsAParseError() throws {
        let url = Fixtures.url("corpus/twitter.json")
        let error = try #require(throws: JSONParseError.self) {
            try ModelInference(rootEntity: "Status").add(contentsOf: url, at: "nothing")
        }
        #expect(error.code == .keyPathNotFound)
    }

    @Test func anEmptyArrayAtTheKeyPathNamesIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-infer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("t.json")
        try Data(#"{"statuses": []}"#.utf8).write(to: url)
        let error = try #require(throws: ModelInferenceError.self) {
            try ModelInference(rootEntity: "Status").add(contentsOf: url, at: "statuses", source: "t.json")
        }
        #expect(error.description == "t.json: $.statuses: no objects to infer Status from: found an empty array")
    }
}
