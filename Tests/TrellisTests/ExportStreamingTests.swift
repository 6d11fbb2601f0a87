import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// Streamed exports (issue 28 point 5): `ObjectExporter.write(_:as:batchSize:to:)` reads a
/// request's objects a batch at a time and writes each as it is built, on every store, giving
/// the bytes the whole-array export gives.
@Suite struct ExportStreamingTests {
    /// Characters 1…n, each with two powers out of five and one publisher out of three; power
    /// 5 and publisher 3 are placeholders (known by their identifier only).
    static func payload(count: Int) -> JSONValue {
        .array(
            (1...count).map { i -> JSONValue in
                let powers: [JSONValue] = [["id": .number(JSONNumber(Int64(i % 4 + 1))), "name": .string("Power \(i % 4 + 1)")], 5]
                let publisher: JSONValue = i % 3 == 0 ? 3 : ["id": .number(JSONNumber(Int64(i % 3))), "name": .string("Publisher \(i % 3)")]
                return [
                    "id": .number(JSONNumber(Int64(i))), "name": .string("Hero \(i)"), "real_name": .string(String(repeating: "x", count: i % 7)),
                    "powers": .array(powers), "publisher": publisher,
                ]
            })
    }

    static func store(_ kind: StoreKind, count: Int) throws -> TestStore {
        let store = try kind.makeStore(model: try GraphFixture.grootModel())
        _ = try ObjectContext(store: store.store).importObjects(from: payload(count: count), entity: "Character")
        return store
    }

    static func streamed(
        _ context: ObjectContext, _ request: ObjectFetchRequest, _ format: ObjectExporter.TextFormat,
        batchSize: Int, options: ExportOptions = ExportOptions()
    ) throws -> (text: String, count: Int) {
        var data = Data()
        let count = try ObjectExporter(context: context, options: options).write(request, as: format, batchSize: batchSize) {
            data.append($0)
        }
        return (String(decoding: data, as: UTF8.self), count)
    }

    /// Compact, pretty and NDJSON, for the whole entity and for sorted, filtered, offset and
    /// limited requests, in batches of 1, 3 and 1000: the text is that of the array
    /// ``ObjectExporter/json(for:)-([ManagedObject])`` gives (NDJSON: one element a line),
    /// and nothing stays registered in the context afterwards.
    @Test(arguments: StoreKind.allCases)
    func theStreamIsTheWholeArrayExport(kind: StoreKind) throws {
        let store = try Self.store(kind, count: 10)
        let requests = [
            ObjectFetchRequest(entity: "Character"),
            ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("realName", ascending: false)], limit: 7, offset: 2),
            ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id > 4"), sortDescriptors: [ObjectSortDescriptor("name")]),
            ObjectFetchRequest(entity: "Power"),
            ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id > 40")),
        ]
        for request in requests {
            let whole = ObjectContext(store: store.store)
            let array = try whole.read { try whole.exportJSON(try whole.fetch(request)) }
            let elements = try #require(array.arrayValue)
            for batchSize in [1, 3, 1000] {
                let context = ObjectContext(store: store.store)
                let compact = try Self.streamed(context, request, .array(.compact), batchSize: batchSize)
                #expect(compact.text == (try JSONWriter.string(for: array)) + "\n")
                #expect(compact.count == elements.count)
                #expect(
                    try Self.streamed(context, request, .array(.pretty), batchSize: batchSize).text
                        == (try JSONWriter.string(for: array, options: .pretty)) + "\n")
                #expect(
                    try Self.streamed(context, request, .lines, batchSize: batchSize).text
                        == (try elements.map { try JSONWriter.string(for: $0) + "\n" }.joined()))
                #expect(context.registeredObjectCount == 0)
            }
        }
        let power = try Self.streamed(ObjectContext(store: store.store), ObjectFetchRequest(entity: "Power"), .array(.compact), batchSize: 2)
        #expect(power.text == #"[{"id":2,"name":"Power 2"},{"id":5},{"id":3,"name":"Power 3"},{"id":4,"name":"Power 4"},{"id":1,"name":"Power 1"}]"# + "\n")
        var excluding = ExportOptions()
        excluding.placeholders = .exclude
        let publishers = try Self.streamed(
            ObjectContext(store: store.store), ObjectFetchRequest(entity: "Publisher"), .lines,
            batchSize: 1, options: excluding)
        #expect(publishers.text == "{\"id\":1,\"name\":\"Publisher 1\"}\n{\"id\":2,\"name\":\"Publisher 2\"}\n")
        #expect(publishers.count == 2)
    }

    /// While 3,000 characters are written in batches of 100, the context never holds more
    /// than one batch and its related objects (100 + 5 powers + 3 publishers), counted at
    /// every chunk handed to the sink (about 64 KiB each: several per export).
    @Test(arguments: StoreKind.allCases)
    func memoryHoldsOneBatch(kind: StoreKind) throws {
        let store = try Self.store(kind, count: 3000)
        let context = ObjectContext(store: store.store)
        var registered: [Int] = []
        var bytes = 0
        let count = try ObjectExporter(context: context).write(ObjectFetchRequest(entity: "Character"), as: .array(.pretty), batchSize: 100) {
            registered.append(context.registeredObjectCount)
            bytes += $0.count
        }
        #expect(count == 3000)
        #expect(bytes > 500_000)
        #expect(registered.count > 3)
        #expect(registered.dropLast().allSatisfy { $0 > 0 && $0 <= 108 }, "\(registered)")
        #expect(context.registeredObjectCount == 0)
    }

    /// The session hands out the request's objects in order, `batchSize` at a time, the last
    /// batch shorter, on every store (the SQLite store steps one statement through them).
    @Test(arguments: StoreKind.allCases)
    func sessionsFetchRequestsInBatches(kind: StoreKind) throws {
        let store = try Self.store(kind, count: 7)
        let model = store.store.model
        let request = try ObjectFetchRequest(entity: "Character", sortDescriptors: [ObjectSortDescriptor("name", ascending: false)])
            .resolved(in: model)
        try store.store.read { session in
            let whole = try session.fetch(request)
            var batches: [[ObjectSnapshot]] = []
            try session.fetch(request, batchSize: 3) { batch in
                // The session stays usable inside: the same request again, and a lookup.
                let again = try session.fetch(request)
                let found = try session.fetch(ids: [batch[0].id])
                #expect(again.count == 7)
                #expect(found.map(\.id) == [batch[0].id])
                batches.append(batch)
            }
            #expect(batches.map(\.count) == [3, 3, 1])
            #expect(batches.flatMap { $0 } == whole)
            #expect(whole.compactMap { $0.attributes[0]?.integerValue } == [7, 6, 5, 4, 3, 2, 1])
            var none = 0
            try session.fetch(
                try ObjectFetchRequest(entity: "Character", predicate: try ObjectPredicate("id > 99")).resolved(in: model),
                batchSize: 3
            ) { _ in none += 1 }
            #expect(none == 0)
        }
    }

    /// An object that cannot be written fails the stream with the error the whole export
    /// gives: a reverse transformer's non-finite number is `JSONWriter`'s error at its path
    /// (`$[1].code`), a reverse that throws the same ``ExportError``, on every store.
    @Test(arguments: StoreKind.allCases)
    func errorsAreThoseOfTheWholeExport(kind: StoreKind) throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    GraphFixture.attribute("id", .integer64, key: "id"),
                    GraphFixture.attribute("code", .string, key: "code", transformer: "Odd"),
                ],
                userInfo: ["identityAttributes": "id"])
        ])
        var registry = JSONValueTransformerRegistry()
        registry.register(
            JSONValueTransformer(
                name: "Odd", forward: { $0.stringValue.map(AttributeValue.string) },
                reverse: { value in
                    switch value.stringValue {
                    case "inf": return .number(JSONNumber(Double.infinity))
                    case "bad": throw TransformError(code: .invalidValue, transformerName: "Odd", message: "no way back")
                    default: return .string(value.stringValue ?? "")
                    }
                }))
        let bindings = MappingBindings(transformers: registry)
        for (codes, expected) in [
            (["a", "inf", "b"], "$[1].code: cannot write the non-finite number inf as JSON"),
            (["a", "b", "bad"], #"Item/3.code: value transformer 'Odd' cannot reverse "bad": no way back"#),
        ] {
            let store = try kind.makeStore(model: model)
            let payload = JSONValue.array(codes.enumerated().map { ["id": .number(JSONNumber(Int64($0.offset + 1))), "code": .string($0.element)] })
            _ = try ObjectContext(store: store.store, bindings: bindings).importObjects(from: payload, entity: "Item")
            let whole = ObjectContext(store: store.store, bindings: bindings)
            let wholeError = try #require(throws: (any Error).self) {
                try JSONWriter.string(for: try whole.read { try whole.exportJSON(try whole.fetch("Item")) })
            }
            #expect("\(wholeError)" == expected)
            for format in [ObjectExporter.TextFormat.array(.compact), .array(.pretty), .lines] {
                let streamError = try #require(throws: (any Error).self) {
                    try ObjectExporter(context: ObjectContext(store: store.store, bindings: bindings))
                        .write(ObjectFetchRequest(entity: "Item"), as: format, batchSize: 2) { _ in }
                }
                #expect("\(streamError)" == expected)
            }
        }
    }

    /// 2,500 characters streamed in batches of 1000 (three batches, the SQLite statement
    /// stepped, the PostgreSQL cursor fetched three times) give the same bytes on every
    /// store as on the in-memory one, for the whole entity and for a sorted, offset and
    /// limited request; each character with its powers and publisher nested.
    @Test(arguments: StoreKind.allCases)
    func manyObjectsGiveTheSameBytesOnEveryStore(kind: StoreKind) throws {
        let requests = [
            ObjectFetchRequest(entity: "Character"),
            ObjectFetchRequest(
                entity: "Character", predicate: try ObjectPredicate("id > 100"),
                sortDescriptors: [ObjectSortDescriptor("realName", ascending: false), ObjectSortDescriptor("name")],
                limit: 1500, offset: 700),
        ]
        let reference = try Self.store(.inMemory, count: 2500)
        let store = try Self.store(kind, count: 2500)
        for (n, request) in requests.enumerated() {
            let expected = try Self.streamed(ObjectContext(store: reference.store), request, .array(.compact), batchSize: 1000)
            let streamed = try Self.streamed(ObjectContext(store: store.store), request, .array(.compact), batchSize: 1000)
            #expect(streamed.count == (n == 0 ? 2500 : 1500))
            #expect(streamed.count == expected.count)
            #expect(streamed.text == expected.text)
        }
        let first = try Self.streamed(ObjectContext(store: store.store), requests[0], .lines, batchSize: 1000).text.prefix { $0 != "\n" }
        #expect(first == #"{"id":1,"name":"Hero 1","real_name":"x","powers":[{"id":2,"name":"Power 2"},5],"publisher":{"id":1,"name":"Publisher 1"}}"#)
    }
}
