import Foundation
import Testing
import Trellis

@testable import TrellisModelFile

@Suite struct ModelFileErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// Entities JSON (wrapped into a model file) or, when `whole` is set, the whole file.
        let json: String
        let whole: Bool
        let code: ModelFileError.Code
        let description: String
        var testDescription: String { name }

        init(_ name: String, entities json: String, _ code: ModelFileError.Code, _ description: String) {
            self.name = name
            self.json = #"{"format": "trellis-model", "formatVersion": 1, "entities": \#(json)}"#
            self.whole = false
            self.code = code
            self.description = description
        }

        init(_ name: String, file json: String, _ code: ModelFileError.Code, _ description: String) {
            self.name = name
            self.json = json
            self.whole = true
            self.code = code
            self.description = description
        }
    }

    static let cases: [Case] = [
        Case("not an object", file: "[]", .wrongType, "$: expected a model file (an object), found an array"),
        Case(
            "a payload array", file: #"[{"id": 1}, {"id": 2}]"#, .notAModel,
            "looks like a JSON payload, not a model file (an array of 2 elements); import it without --model "
                + "(the model is inferred from the payload), or write a model for it with "
                + "'trellis model infer FILE --entity ENTITY [--at KEYPATH] -o model.json'"),
        Case(
            "a payload object", file: #"{"data": [], "version": "2", "meta": {}}"#, .notAModel,
            #"looks like a JSON payload, not a model file (an object with the keys 'data', 'version', 'meta' and no "format"); "#
                + "import it without --model (the model is inferred from the payload), or write a model for it with "
                + "'trellis model infer FILE --entity ENTITY [--at KEYPATH] -o model.json'"),
        Case(
            "a model without format, with an unknown key", file: #"{"formatVersion": 1, "entities": [], "x": 1}"#, .unknownKey,
            "$.x: unknown key 'x' in a model file; allowed keys: format, formatVersion, version, keyConvention, entities, bindings"),
        Case(
            "missing format", file: #"{"formatVersion": 1, "entities": []}"#, .missingKey,
            #"$: a model file needs "format": "trellis-model""#),
        Case(
            "wrong format", file: #"{"format": "core-data", "formatVersion": 1, "entities": []}"#, .unsupportedFormat,
            "$.format: unsupported format 'core-data'; expected 'trellis-model'"),
        Case(
            "future version", file: #"{"format": "trellis-model", "formatVersion": 2, "entities": []}"#, .unsupportedFormat,
            "$.formatVersion: unsupported formatVersion 2; this reader knows version 1"),
        Case(
            "unknown top key", file: #"{"format": "trellis-model", "formatVersion": 1, "entites": []}"#, .unknownKey,
            "$.entites: unknown key 'entites' in a model file (did you mean 'entities'?); allowed keys: "
                + "format, formatVersion, version, keyConvention, entities, bindings"),
        Case(
            "missing entities", file: #"{"format": "trellis-model", "formatVersion": 1}"#, .missingKey,
            #"$: a model file needs "entities" (an array)"#),
        Case(
            "bad key convention", file: #"{"format": "trellis-model", "formatVersion": 1, "keyConvention": "camel", "entities": []}"#,
            .invalidValue, "$.keyConvention: unknown key convention 'camel'; expected one of: none, snakeCase, propertyName"),
        Case(
            "entity without name", entities: #"[{"attributes": []}]"#, .missingKey,
            #"$.entities[0]: an entity needs "name" (a string)"#),
        Case(
            "entity name not a string", entities: #"[{"name": 3}]"#, .wrongType,
            "$.entities[0].name: expected a string, found the number 3"),
        Case(
            "unknown entity key", entities: #"[{"name": "A", "identityAttribute": "id"}]"#, .unknownKey,
            "$.entities[0].identityAttribute: unknown key 'identityAttribute' in an entity (did you mean 'identityAttributes'?); "
                + "allowed keys: name, parent, abstract, identityAttributes, entityMapper, dictionaryTransformer, userInfo, "
                + "attributes, relationships"),
        Case(
            "unknown attribute key", entities: #"[{"name": "A", "attributes": [{"name": "id", "tpye": "string"}]}]"#, .unknownKey,
            "$.entities[0].attributes[0].tpye: unknown key 'tpye' in an attribute (did you mean 'type'?); "
                + "allowed keys: name, type, optional, default, jsonKeyPath, transformer, userInfo"),
        Case(
            "unknown attribute type", entities: #"[{"name": "A", "attributes": [{"name": "id", "type": "int"}]}]"#, .invalidValue,
            "$.entities[0].attributes[0].type: unknown attribute type 'int'; expected one of: string, integer16, integer32, "
                + "integer64, decimal, double, float, boolean, date, binary, uuid, uri, json"),
        Case(
            "attribute without type", entities: #"[{"name": "A", "attributes": [{"name": "id"}]}]"#, .missingKey,
            #"$.entities[0].attributes[0]: an attribute needs "type" (a string)"#),
        Case(
            "optional not a boolean", entities: #"[{"name": "A", "attributes": [{"name": "id", "type": "string", "optional": "no"}]}]"#,
            .wrongType, #"$.entities[0].attributes[0].optional: expected true or false, found the string "no""#),
        Case(
            "default of the wrong type", entities: #"[{"name": "A", "attributes": [{"name": "n", "type": "integer16", "default": 70000}]}]"#,
            .invalidValue,
            "$.entities[0].attributes[0].default: an integer16 default must be an integer in -32768...32767, "
                + "found the number 70000"),
        Case(
            "userInfo value not a string", entities: #"[{"name": "A", "userInfo": {"k": 1}}]"#, .wrongType,
            "$.entities[0].userInfo.k: expected a string, found the number 1"),
        Case(
            "bad key path", entities: #"[{"name": "A", "attributes": [{"name": "n", "type": "string", "jsonKeyPath": "a..b"}]}]"#,
            .invalidValue, "$.entities[0].attributes[0].jsonKeyPath: invalid key path 'a..b' at character 3: empty component before '.'"),
        Case(
            "key path conflicts with userInfo",
            entities: #"[{"name": "A", "attributes": [{"name": "n", "type": "string", "jsonKeyPath": "a", "userInfo": {"JSONKeyPath": "b"}}]}]"#,
            .conflictingAnnotation,
            #"$.entities[0].attributes[0].jsonKeyPath: "jsonKeyPath": "a" disagrees with "userInfo"."JSONKeyPath": "b"; "#
                + "give it once, or the same value both ways"),
        Case(
            "identity conflicts with userInfo",
            entities:
                #"[{"name": "A", "identityAttributes": ["id"], "userInfo": {"identityAttributes": "id, name"}, "attributes": [{"name": "id", "type": "string"}]}]"#,
            .conflictingAnnotation,
            #"$.entities[0].identityAttributes: "identityAttributes": "id" disagrees with "#
                + #""userInfo"."identityAttributes": "id, name"; give it once, or the same value both ways"#),
        Case(
            "identity element not a string", entities: #"[{"name": "A", "identityAttributes": [1]}]"#, .wrongType,
            "$.entities[0].identityAttributes[0]: expected an attribute name (a string), found the number 1"),
        // Names are stored as Groot's comma/space separated annotation: "a, b" would become 'a' and 'b'.
        Case(
            "identity name with a comma",
            entities: #"[{"name": "A", "identityAttributes": ["id", "a, b"], "attributes": [{"name": "a, b", "type": "string"}]}]"#,
            .invalidValue,
            #"$.entities[0].identityAttributes[1]: identity attribute name "a, b" cannot hold a comma or whitespace: "#
                + "the identityAttributes annotation separates names with them"),
        Case(
            "identity name with a space", entities: #"[{"name": "A", "identityAttributes": ["x; DROP TABLE y"]}]"#,
            .invalidValue,
            #"$.entities[0].identityAttributes[0]: identity attribute name "x; DROP TABLE y" cannot hold a comma or "#
                + "whitespace: the identityAttributes annotation separates names with them"),
        Case(
            "empty identity name", entities: #"[{"name": "A", "identityAttributes": [""]}]"#,
            .invalidValue, "$.entities[0].identityAttributes[0]: an identity attribute name cannot be empty"),
        Case(
            "control character in names",
            entities: #"[{"name": "A\u0000", "attributes": [{"name": "b\n", "type": "string"}], "#
                + #""relationships": [{"name": "", "destination": "A\u0000"}]}]"#, .invalidModel,
            "invalid model (3 problems):\n"
                + "  $.entities[0].name: entity A\\u0000: the name contains the control character U+0000; names cannot hold control characters (U+0000–U+001F, U+007F)\n"
                + "  $.entities[0].attributes[0].name: entity A\\u0000, property b\\u000a: the name contains the control character U+000A; "
                + "names cannot hold control characters (U+0000–U+001F, U+007F)\n"
                + "  $.entities[0].relationships[0].name: entity A\\u0000, property : a property needs a name"),
        Case(
            "unknown delete rule", entities: #"[{"name": "A", "relationships": [{"name": "r", "destination": "A", "deleteRule": "delete"}]}]"#,
            .invalidValue,
            "$.entities[0].relationships[0].deleteRule: unknown delete rule 'delete'; expected one of: "
                + "nullify, cascade, deny, noAction"),
        Case(
            "unknown merge policy", entities: #"[{"name": "A", "relationships": [{"name": "r", "destination": "A", "mergePolicy": "union"}]}]"#,
            .invalidValue, "$.entities[0].relationships[0].mergePolicy: unknown merge policy 'union'; expected one of: replace, append"),
        Case(
            "negative count", entities: #"[{"name": "A", "relationships": [{"name": "r", "destination": "A", "maxCount": -1}]}]"#,
            .wrongType, "$.entities[0].relationships[0].maxCount: expected a non-negative integer, found the number -1"),
        Case(
            "relationship without destination", entities: #"[{"name": "A", "relationships": [{"name": "r"}]}]"#, .missingKey,
            #"$.entities[0].relationships[0]: a relationship needs "destination" (a string)"#),
        Case(
            "unknown destination", entities: #"[{"name": "A", "relationships": [{"name": "r", "destination": "B"}]}]"#, .invalidModel,
            "invalid model (1 problem):\n"
                + "  $.entities[0].relationships[0].destination: entity A, property r: destination entity 'B' does not exist"),
        Case(
            "unknown identity attribute and parent",
            entities: #"[{"name": "A", "identityAttributes": "id"}, {"name": "B", "parent": "C"}]"#, .invalidModel,
            "invalid model (2 problems):\n"
                + "  $.entities[1].parent: entity B: parent entity 'C' does not exist\n"
                + "  $.entities[0].identityAttributes: entity A, property id: identity attribute 'id' is not an attribute of the entity"),
        Case(
            "duplicate entity", entities: #"[{"name": "A"}, {"name": "A"}]"#, .invalidModel,
            "invalid model (1 problem):\n  $.entities[1]: entity A: the entity is declared twice"),
        Case(
            "entity declared three times", entities: #"[{"name": "A"}, {"name": "B"}, {"name": "A"}, {"name": "A"}]"#, .invalidModel,
            "invalid model (2 problems):\n  $.entities[2]: entity A: the entity is declared twice\n"
                + "  $.entities[3]: entity A: the entity is declared twice"),
        Case(
            "unbound transformer", entities: #"[{"name": "A", "attributes": [{"name": "d", "type": "date", "transformer": "TwitterDate"}]}]"#,
            .unboundName,
            "$.entities[0].attributes[0].transformer: value transformer 'TwitterDate' is not bound; "
                + "the model uses transformers: TwitterDate; bound in \"bindings.transformers\": none; built-in: "
                + BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames)),
        Case(
            "unbound entity mapper", entities: #"[{"name": "A", "entityMapper": "M"}]"#, .unboundName,
            #"$.entities[0].entityMapper: entity mapper 'M' is not bound; the model uses entity mappers: M; "#
                + #"bound in "bindings.entityMappers": none"#),
        Case(
            "unbound dictionary transformer", entities: #"[{"name": "A", "dictionaryTransformer": "D"}]"#, .unboundName,
            #"$.entities[0].dictionaryTransformer: dictionary transformer 'D' is not bound; the model uses dictionary "#
                + #"transformers: D; bound in "bindings.dictionaryTransformers": none"#),
        Case(
            "alias of a missing built-in",
            file: #"{"format": "trellis-model", "formatVersion": 1, "entities": [], "bindings": {"transformers": {"X": "no-such"}}}"#,
            .invalidValue,
            "$.bindings.transformers.X: 'no-such' is not a built-in value transformer; built-ins: "
                + BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames)),
        Case(
            "transformer declaration with unknown key",
            file: #"{"format": "trellis-model", "formatVersion": 1, "entities": [], "bindings": {"transformers": {"X": {"format": "y"}}}}"#,
            .unknownKey, "$.bindings.transformers.X.format: unknown key 'format' in a transformer declaration; allowed keys: dateFormat"),
        Case(
            "mapper to an unknown entity",
            file: #"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": "Car"}], "#
                + #""bindings": {"entityMappers": {"M": {"keyPath": "type", "entities": {"boat": "Boat"}}}}}"#,
            .invalidValue, #"$.bindings.entityMappers.M.entities.boat: unknown entity 'Boat'; the model has: Car"#),
        Case(
            "unknown dictionary step",
            file: #"{"format": "trellis-model", "formatVersion": 1, "entities": [], "bindings": {"dictionaryTransformers": {"D": {"move": {}}}}}"#,
            .unknownKey,
            "$.bindings.dictionaryTransformers.D.move: unknown key 'move' in a dictionary transformer (did you mean 'remove'?); "
                + "allowed keys: copy, rename, set, remove"),
        Case(
            "unknown bindings key",
            file: #"{"format": "trellis-model", "formatVersion": 1, "entities": [], "bindings": {"transformer": {}}}"#,
            .unknownKey,
            "$.bindings.transformer: unknown key 'transformer' in the bindings (did you mean 'transformers'?); "
                + "allowed keys: transformers, entityMappers, dictionaryTransformers"),
    ]

    @Test(arguments: cases) func reportsTheProblemAndWhere(_ testCase: Case) throws {
        do {
            _ = try ModelFile.read(data: Data(testCase.json.utf8))
            Issue.record("expected \(testCase.code)")
        } catch let error as ModelFileError {
            #expect(error.code == testCase.code)
            #expect(error.description == testCase.description)
        }
    }

    @Test func missingFileNamesTheFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent/model.json")
        #expect { try ModelFile.read(from: url) } throws: { error in
            let e = try #require(error as? ModelFileError)
            return e.code == .readFailed && e.description == "/nonexistent/model.json: no such file"
        }
    }

    @Test func errorsInAFileNameTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-mf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("model.json")
        try Data(#"{"format": "trellis-model", "formatVersion": 1, "entities": [{"name": 1}]}"#.utf8).write(to: url)
        #expect { try ModelFile.read(from: url) } throws: { error in
            (error as? ModelFileError)?.description == "\(url.path): $.entities[0].name: expected a string, found the number 1"
        }
    }
}

@Suite struct ModelFileMalformedJSONTests {
    @Test func malformedJSONGivesLineAndColumn() throws {
        let text = "{\n  \"format\": \"trellis-model\",\n  \"formatVersion\": 1\n  \"entities\": []\n}\n"
        #expect { try ModelFile.read(data: Data(text.utf8)) } throws: { error in
            let e = try #require(error as? ModelFileError)
            return e.code == .malformedJSON && e.line == 4 && e.column == 3
                && e.description == "4:3: expected ',' or '}' after object member"
        }
    }

    @Test func malformedJSONInAFileNamesFileLineAndColumn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-mf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("model.json")
        try Data("{\"format\": \"trellis-model\",, }".utf8).write(to: url)
        #expect { try ModelFile.read(from: url) } throws: { error in
            let e = try #require(error as? ModelFileError)
            return e.description == "\(url.path):1:28: expected a string key, found ','" && e.path == nil
        }
    }
}
