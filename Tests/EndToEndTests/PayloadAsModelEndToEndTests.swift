import Foundation
import Testing
import TrellisTestSupport

/// A payload given where a model file belongs (`--model twitter.json`, `model show
/// characters.json`) is named as a payload, with what to type instead, exit 1, and no
/// store; a model file with a typo in a top-level key keeps the error naming the key.
@Suite struct PayloadAsModelEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let stderr: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let advice = "; import it without --model (the model is inferred from the payload), or write a model for it with "

    static let cases: [Case] = [
        Case(
            arguments: ["import", "Examples/twitter/twitter.json", "--model", "Examples/twitter/twitter.json", "--entity", "Status", "--at", "statuses"],
            stderr: "error: Examples/twitter/twitter.json: looks like a JSON payload, not a model file "
                + "(an object with the keys 'statuses', 'search_metadata' and no \"format\")" + advice
                + "'trellis model infer Examples/twitter/twitter.json --entity ENTITY [--at KEYPATH] -o model.json'\n"),
        Case(
            arguments: ["model", "show", "Examples/twitter/twitter.json"],
            stderr: "error: Examples/twitter/twitter.json: looks like a JSON payload, not a model file "
                + "(an object with the keys 'statuses', 'search_metadata' and no \"format\")" + advice
                + "'trellis model infer Examples/twitter/twitter.json --entity ENTITY [--at KEYPATH] -o model.json'\n"),
        Case(
            arguments: ["export", "--model", "Examples/characters/characters.json", "--entity", "Character"],
            stderr: "error: Examples/characters/characters.json: looks like a JSON payload, not a model file (an array of 4 elements)" + advice
                + "'trellis model infer Examples/characters/characters.json --entity ENTITY [--at KEYPATH] -o model.json'\n"),
        Case(
            arguments: ["schema", "--model", "Examples/citm/citm_catalog.json"],
            stderr: "error: Examples/citm/citm_catalog.json: looks like a JSON payload, not a model file (an object with the keys "
                + "'areaNames', 'audienceSubCategoryNames', 'blockNames', 'events', 'performances', … and no \"format\")" + advice
                + "'trellis model infer Examples/citm/citm_catalog.json --entity ENTITY [--at KEYPATH] -o model.json'\n"),
        // A model file whose "format" key is misspelt is still a model file with a typo.
        Case(
            arguments: ["model", "show", "typo.json"],
            stderr: "error: typo.json: $.fromat: unknown key 'fromat' in a model file (did you mean 'format'?); "
                + "allowed keys: format, formatVersion, version, keyConvention, entities, bindings\n"),
    ]

    @Test(arguments: cases) func aPayloadGivenAsTheModelSaysSo(_ c: Case) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for file in ["twitter/twitter.json", "characters/characters.json", "citm/citm_catalog.json"] {
            try directory.copyExample(file)
        }
        try Data(#"{"fromat": "trellis-model", "formatVersion": 1, "entities": []}"#.utf8)
            .write(to: directory.url.appendingPathComponent("typo.json"))
        let result = try TrellisProcess.run(c.arguments, in: directory.url)
        #expect(result == TrellisProcess.Result(status: 1, stdout: "", stderr: c.stderr))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("trellis.sqlite").path))
    }
}
