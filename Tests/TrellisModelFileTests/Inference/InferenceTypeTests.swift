import Foundation
import Testing
import Trellis
import TrellisModelFile

/// docs/ModelInference.md, "Attribute types": the widening table, one row per case.
@Suite struct InferenceTypeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        /// JSON values of the key `v`, one per object.
        var values: [String]
        var type: AttributeType
        var transformer: String? = nil
        var testDescription: String { values.joined(separator: ", ") }
    }

    static let cases: [Case] = [
        Case(values: ["true", "false"], type: .boolean),
        Case(values: ["1", "42", "-7"], type: .integer64),
        Case(values: ["1", "2.5"], type: .double),
        Case(values: ["1e3", "0.1"], type: .double),
        Case(values: ["0.8444218515250481", "-1.5e-7"], type: .double),
        Case(values: ["3.14159265358979323846"], type: .decimal),
        Case(values: ["0.1000000000000000055511151231257827"], type: .decimal),
        Case(values: ["1", "18446744073709551616"], type: .decimal),
        Case(values: ["1e400"], type: .json),
        Case(values: [#""2015-02-16""#, #""2015-02-17""#], type: .date, transformer: "iso8601-date"),
        Case(values: [#""2017-10-10T16:00:00Z""#, #""2017-10-10T16:00:00.123+02:00""#], type: .date, transformer: "iso8601"),
        Case(values: [#""2017-10-10T16:00:00Z""#, #""2015-02-16""#], type: .date, transformer: "iso8601"),
        Case(values: [#""Sun Aug 31 00:29:15 +0000 2014""#, #""Mon Feb 29 23:59:59 -0530 2016""#], type: .date, transformer: "TwitterDate"),
        Case(values: [#""Sun Aug 32 00:29:15 +0000 2014""#], type: .string),
        // February 29 of a year that has none is no date (the TwitterDate format refuses it).
        Case(values: [#""Sun Feb 29 00:29:15 +0000 2015""#], type: .string),
        Case(values: [#""Tue Feb 29 00:00:00 +0000 1900""#], type: .string),
        Case(values: [#""Tue Feb 29 00:00:00 +0000 2000""#], type: .date, transformer: "TwitterDate"),
        Case(values: [#""Sun Aug 31 24:29:15 +0000 2014""#], type: .string),
        Case(values: [#""Sun Agu 31 00:29:15 +0000 2014""#], type: .string),
        Case(values: [#""sun Aug 31 00:29:15 +0000 2014""#], type: .string),
        Case(values: [#""https://api.github.com/users/a""#, #""http://x.org/?q=1""#], type: .uri),
        Case(values: [#""https://api.github.com/repos/a/issues/13/labels{/name}""#], type: .string),
        Case(values: [#""/relative/path""#], type: .string),
        Case(values: [#""0b3c8f2e-7c1a-4b7e-9a51-2f4d6c8e0a11""#], type: .uuid),
        Case(values: [#""0B3C8F2E-7C1A-4B7E-9A51-2F4D6C8E0A11""#], type: .string),
        Case(values: [#""recent""#, #""""#], type: .string),
        Case(values: ["5", #""five""#], type: .string),
        Case(values: ["true", #""yes""#], type: .string),
        Case(values: [#""2017-10-10T16:00:00Z""#, #""soon""#], type: .string),
        Case(values: [#""1699""#, #""1700""#], type: .string),
        Case(values: ["true", "1"], type: .json),
        Case(values: ["[0, 9]", "[]"], type: .json),
        Case(values: [#"[{"a": 1}, 2]"#], type: .json),
        Case(values: [#"{"a": 1}"#, "3"], type: .json),
        Case(values: [#"[{"a": 1}]"#, #"{"a": 1}"#], type: .json),
    ]

    @Test(arguments: cases)
    func type(_ c: Case) throws {
        let objects = c.values.enumerated().map { #"{"id": \#($0.offset), "v": \#($0.element)}"# }
        let inferred = try InferenceSamples.infer("[" + objects.joined(separator: ", ") + "]")
        let attribute = try #require(inferred.attribute("Item", "v"))
        #expect(attribute.type == c.type)
        #expect(attribute.transformerName == c.transformer)
    }

    /// Every value of the table imports with the model inferred from it: a string taken for
    /// a date is one its transformer reads (not `Sun Feb 29 … 2015`, which the format refuses).
    @Test(arguments: cases)
    func theInferredTypeImportsTheSampledValues(_ c: Case) throws {
        let objects = c.values.enumerated().map { #"{"id": \#($0.offset), "v": \#($0.element)}"# }
        let payload = "[" + objects.joined(separator: ", ") + "]"
        let inferred = try InferenceSamples.infer(payload)
        let context = ObjectContext(store: InMemoryStore(model: inferred.model), bindings: inferred.file.bindings)
        let report = try context.importObjects(from: try JSONReader.parse(Data(payload.utf8)), entity: "Item")
        #expect(report.counts(for: "Item").inserted == c.values.count)
    }

    @Test func twitterDatesBindTheirFormat() throws {
        let inferred = try InferenceSamples.infer(#"[{"id": 1, "created_at": "Sun Aug 31 00:29:15 +0000 2014"}]"#)
        #expect(inferred.file.bindingDeclarations.transformers == ["TwitterDate": .dateFormat("EEE MMM dd HH:mm:ss Z yyyy")])
        let other = try InferenceSamples.infer(#"[{"id": 1, "created_at": "2014-08-31T00:29:15Z"}]"#)
        #expect(other.file.bindingDeclarations.isEmpty)
    }

    @Test func aKeySometimesAbsentOrNullIsOptional() throws {
        let inferred = try InferenceSamples.infer(
            #"""
            [{"id": 1, "always": "a", "sometimes": "b", "nullable": "c"}, {"id": 2, "always": "d", "nullable": null}]
            """#)
        #expect(
            inferred.attributeSummary("Item") == [
                "id: integer64 required @ id", "always: string required @ always", "sometimes: string @ sometimes",
                "nullable: string @ nullable",
            ])
    }
}
