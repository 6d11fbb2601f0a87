// libFuzzer target: the NSPredicate-format text parser, the resolver and both stores'
// evaluation of arbitrary predicate text.
//
// Every input is parsed with 0 to 4 arguments taken in order from `argumentPool` (the first
// count the parser accepts), then fetched from an in-memory and a SQLite store holding the
// same objects, for each entity in `entities`. Checks, besides "no crash, no leak, no hang":
// - parsing gives a predicate or a ``QueryError``; a syntax error carries a column inside
//   the text (1 … length + 1);
// - a predicate's `description` parses again, to the same text, and selects the same objects;
// - a predicate that does not fit the model (unknown name, type mismatch, bad key path,
//   regular expression) fails with a ``QueryError`` with a column, the same on both stores;
// - both stores return the same objects in the same order, and the same count
//   (the SQLite store compiles to SQL, the in-memory store evaluates).
import Foundation
import FuzzSupport
import Trellis
import TrellisSQLite

let entities = ["Character", "Item"]
let argumentPool: [(any PredicateArgument)?] = ["label", "strasse", 2.5, 1, nil]

let model: ObjectModel = {
    func attribute(_ name: String, _ type: AttributeType) -> AttributeDescription {
        AttributeDescription(name: name, type: type, userInfo: ["JSONKeyPath": name])
    }
    func toMany(_ name: String, _ destination: String, _ inverse: String, mapped: Bool = true) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destinationEntity: destination, inverseName: inverse, isToMany: true,
            userInfo: mapped ? ["JSONKeyPath": name] : [:])
    }
    func toOne(_ name: String, _ destination: String, _ inverse: String) -> RelationshipDescription {
        RelationshipDescription(name: name, destinationEntity: destination, inverseName: inverse, userInfo: ["JSONKeyPath": name])
    }
    let identified = ["identityAttributes": "id"]
    do {
        return try ObjectModel(entities: [
            EntityDescription(
                name: "Character",
                attributes: [
                    attribute("id", .integer64), attribute("name", .string), attribute("realName", .string),
                    attribute("rating", .double), attribute("active", .boolean), attribute("createdAt", .date),
                ],
                relationships: [toMany("powers", "Power", "characters"), toOne("publisher", "Publisher", "characters")],
                userInfo: identified),
            EntityDescription(
                name: "Power", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [toMany("characters", "Character", "powers", mapped: false)], userInfo: identified),
            EntityDescription(
                name: "Publisher", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [toMany("characters", "Character", "publisher", mapped: false)], userInfo: identified),
            EntityDescription(
                name: "Item",
                attributes: [
                    attribute("id", .integer64), attribute("label", .string), attribute("price", .decimal),
                    attribute("weight", .float), attribute("score", .double), attribute("flag", .boolean),
                    attribute("at", .date), attribute("uid", .uuid), attribute("link", .uri),
                    attribute("small", .integer16),
                ],
                relationships: [toOne("owner", "Owner", "items"), toMany("tags", "Tag", "items")], userInfo: identified),
            EntityDescription(
                name: "Owner", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [
                    toMany("items", "Item", "owner", mapped: false), toOne("boss", "Owner", "reports"),
                    toMany("reports", "Owner", "boss", mapped: false),
                ], userInfo: identified),
            EntityDescription(
                name: "Tag", attributes: [attribute("id", .integer64), attribute("name", .string)],
                relationships: [toMany("items", "Item", "tags", mapped: false)], userInfo: identified),
        ])
    } catch {
        fatalError("the fuzz target's model: \(error)")
    }
}()

/// The objects both stores hold: text with ß, İ, final sigma, combining marks, emoji, NUL,
/// quotes and `--`; decimals beyond a double's precision; dates with offsets and fractions;
/// integers at 2^53 and Int64.min; missing values everywhere.
let documents: [(entity: String, json: String)] = [
    (
        "Character",
        """
        [{"id":1,"name":"Batman","realName":"Bruce Wayne","rating":4.5,"active":true,"createdAt":"2011-08-21T18:02:52Z",
          "publisher":{"id":1,"name":"DC Comics"},"powers":[{"id":1,"name":"Intelligence"},{"id":2,"name":"Stealth"}]},
         {"id":2,"name":"batgirl","realName":"Barbara Gordon","rating":3.5,"active":true,"publisher":1,"powers":[2]},
         {"id":4,"name":"Straße","rating":2.0,"active":false,"createdAt":"2015-03-01T00:00:00Z","publisher":{"id":2,"name":"Marvel"},"powers":[]},
         {"id":5,"name":"Caf\\u00e9","realName":"\\u00c9lodie","rating":3.0,"active":false,"publisher":2,"powers":[{"id":3,"name":"Flight"}]},
         {"id":6,"name":"CAFE\\u0301","realName":"O'Brien; DROP TABLE \\"Character\\" --","active":true,"powers":[3,2]},
         {"id":7,"realName":"Big 50% off_*?","rating":1.0,"active":false,"publisher":2}]
        """
    ),
    (
        "Item",
        """
        [{"id":1,"label":"Straße","price":1.50,"weight":0.1,"score":2.5,"flag":true,"at":"2020-01-01T00:00:00Z",
          "uid":"6F9619FF-8B86-D011-B42D-00C04FC964FF","link":"https://example.org/a","owner":{"id":1,"name":"Ann","boss":2},"tags":[1,2],"small":5},
         {"id":2,"label":"STRASSE","price":"0.1","weight":1.0,"score":-0.0,"flag":false,"at":"2019-12-31T23:00:00-01:00",
          "owner":{"id":2,"name":"Bob"},"tags":[],"small":-5},
         {"id":3,"label":"İstanbul","price":12345678901234567.89,"score":1e300,"at":"2020-01-01T00:00:00.5Z","tags":[2]},
         {"id":4,"label":"istanbul","price":12345678901234567.88,"at":"2015-11-13T09:36:13.184968Z","owner":{"id":3,"name":"Cid","boss":1}},
         {"id":5,"label":"ΣΟΦΟΣ","price":-0.5,"at":"1969-12-31T23:59:59.999Z","owner":3},
         {"id":6,"label":"σοφός","price":100},
         {"id":7,"label":"a\\u0000b","price":1e-20},
         {"id":8,"label":"👍🏽"},
         {"id":9,"label":"\\u212B"},
         {"id":10,"label":"\\u00C5"},
         {"id":11,"label":"100%_done"},
         {"id":12,"label":"it's \\"quoted\\"; --"},
         {"id":9007199254740993,"label":"big1","score":9007199254740993},
         {"id":-9223372036854775808,"label":"min"},
         {"id":17,"label":"i\\u0307stanbul"},
         {"id":18,"label":"ab"},
         {"id":19,"label":"a\\nb"},
         {"id":21,"label":""}]
        """
    ),
    ("Tag", #"[{"id":1,"name":"red"},{"id":2,"name":"blue"},{"id":3,"name":"unused"}]"#),
]

func filled(_ store: any PersistentStore) -> any PersistentStore {
    do {
        let context = ObjectContext(store: store)
        for document in documents {
            _ = try context.importObjects(from: try JSONReader.parse(Array(document.json.utf8)), entity: document.entity)
        }
    } catch {
        fatalError("the fuzz target's objects do not import: \(error)")
    }
    return store
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-fuzz-predicate-\(getpid())")
let stores: [any PersistentStore] = {
    do {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqlite = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path, model: model)
        atexit { try? FileManager.default.removeItem(at: directory) }
        return [filled(InMemoryStore(model: model)), filled(sqlite)]
    } catch {
        fatalError("the fuzz target's SQLite store: \(error)")
    }
}()

@main
enum Target {
    static func main() {
        _ = stores
        runLibFuzzer { start, count in fuzzPredicate(fuzzInput(start, count)) }
    }
}

func fuzzPredicate(_ bytes: [UInt8]) -> CInt {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let predicate = parse(text) else { return 0 }
    let formatted = predicate.description
    let reparsed: ObjectPredicate
    do { reparsed = try ObjectPredicate(format: formatted) } catch {
        fail("the description \(formatted) of \(text) does not parse: \(error)")
    }
    check(reparsed.description == formatted, "the description \(formatted) reparses as \(reparsed.description)")
    for entity in entities {
        let request = ObjectFetchRequest(entity: entity, predicate: predicate, sortDescriptors: [ObjectSortDescriptor("id")])
        let answers = stores.map { answer(request, on: $0) }
        check(answers[0] == answers[1], "\(entity) where \(text): in memory \(answers[0]), SQLite \(answers[1])")
        var again = request
        again.predicate = reparsed
        let reread = answer(again, on: stores[0])
        // The columns of errors differ (the description is other text); codes and objects do not.
        check(
            reread.ids == answers[0].ids && reread.error?.code == answers[0].error?.code,
            "\(entity) where \(formatted) (reparsed from \(text)): \(reread), not \(answers[0])")
    }
    return 0
}

/// Stops the fuzzer with `message` (printed also in optimized builds, unlike a precondition's).
func fail(_ message: String) -> Never {
    fatalError(message)
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

/// The predicate `text` is, with the first number of arguments from the pool it takes;
/// nil when it is none (after checking the error).
func parse(_ text: String) -> ObjectPredicate? {
    for count in 0...4 {
        do {
            return try ObjectPredicate(format: text, arguments: Array(argumentPool.prefix(count)))
        } catch let error as QueryError {
            if error.code == .arguments { continue }
            check(error.code == .syntax, "parsing \(text) failed with \(error.code): \(error)")
            let column = error.column ?? 0
            check(column >= 1 && column <= text.count + 1, "syntax error column \(column) outside \(text): \(error)")
            return nil
        } catch {
            fail("parsing \(text) threw a \(type(of: error)): \(error)")
        }
    }
    return nil
}

/// What a store answers to a request: the `id`s it fetches (checked against its count), or
/// the error (which must be a located ``QueryError``).
struct Answer: Equatable, CustomStringConvertible {
    var ids: [String]?
    var error: QueryError?
    var description: String { ids.map { $0.joined(separator: ",") } ?? "error \(error.map(String.init(describing:)) ?? "")" }
}

func answer(_ request: ObjectFetchRequest, on store: any PersistentStore) -> Answer {
    let context = ObjectContext(store: store)
    do {
        let ids = try context.fetchSnapshots(request).map { $0["id"]?.integerValue.map(String.init) ?? "-" }
        let count = try context.count(request)
        check(count == ids.count, "\(request) fetched \(ids.count) objects but counts \(count)")
        return Answer(ids: ids)
    } catch let error as QueryError {
        check(error.column != nil, "\(request) failed without a column: \(error)")
        return Answer(error: error)
    } catch {
        fail("\(request) threw a \(type(of: error)): \(error)")
    }
}
