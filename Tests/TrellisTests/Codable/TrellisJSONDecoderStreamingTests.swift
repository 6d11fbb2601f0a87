import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

private struct Hero: Codable, Equatable {
    var name: String
    var age: Int
    var powers: [String]
}

private struct Statuses: Decodable {
    var statuses: [Hero]
}

private struct Response: Decodable {
    struct Inner: Decodable { var docs: [Hero] }
    var response: Inner
}

private struct Snake: Codable, Equatable {
    var userName: String
    var followerCount: Int
}

/// The coding path as text (`["statuses", "Index 1", "age"]`), to compare errors.
private func keys(_ error: any Error) -> [String]? {
    guard let error = error as? DecodingError, let context = error.codableContext else { return nil }
    return context.codingPath.map(\.stringValue)
}

private func caseName(_ error: any Error) -> String {
    switch error as? DecodingError {
    case .typeMismatch?: return "typeMismatch"
    case .valueNotFound?: return "valueNotFound"
    case .keyNotFound?: return "keyNotFound"
    case .dataCorrupted?: return "dataCorrupted"
    default: return "other"
    }
}

private func description(_ error: any Error) -> String {
    (error as? DecodingError)?.codableContext?.debugDescription ?? "\(error)"
}

private func heroesJSON(_ count: Int, lines: Bool = false) -> String {
    let heroes = (0..<count).map { #"{"name":"hero \#($0)","age":\#(20 + $0 % 50),"powers":["p\#($0)","q"]}"# }
    return lines ? heroes.joined(separator: "\n") + "\n" : "[\n" + heroes.joined(separator: ",\n") + "\n]\n"
}

private func expectedHeroes(_ count: Int) -> [Hero] {
    (0..<count).map { Hero(name: "hero \($0)", age: 20 + $0 % 50, powers: ["p\($0)", "q"]) }
}

@Suite struct TrellisJSONDecoderKeyPathTests {
    let text = """
        {"search_metadata": {"count": 2},
         "statuses": [
          {"name": "Ada", "age": 36, "powers": ["math"]},
          {"name": "Grace", "age": "85", "powers": []}
         ]}
        """

    @Test func decodesTheValueAtAKeyPathAsAWrapperWould() throws {
        let good = Data(#"{"meta":1,"statuses":[{"name":"Ada","age":36,"powers":["math"]}]}"#.utf8)
        let heroes = try TrellisJSONDecoder().decode([Hero].self, from: good, at: "statuses")
        #expect(heroes == [Hero(name: "Ada", age: 36, powers: ["math"])])
        #expect(heroes == (try JSONDecoder().decode(Statuses.self, from: good)).statuses)
        let nested = Data(#"{"response":{"docs":[{"name":"Bo","age":1,"powers":[]}],"hits":1}}"#.utf8)
        #expect(try TrellisJSONDecoder().decode([Hero].self, from: nested, at: "response.docs") == [Hero(name: "Bo", age: 1, powers: [])])
        #expect(try TrellisJSONDecoder().decode(Int.self, from: nested, at: "response.hits") == 1)
        let pages = Data(#"{"pages":[{"items":[1,2]},{"items":[3,4,5]}]}"#.utf8)
        #expect(try TrellisJSONDecoder().decode([Int].self, from: pages, at: "pages.1.items") == [3, 4, 5])
        #expect(try TrellisJSONDecoder().decode([Int].self, from: Array(pages), at: "pages.0.items") == [1, 2])
    }

    @Test func anErrorBelowTheKeyPathHasTheWrappersCodingPathAndThePlace() throws {
        let data = Data(text.utf8)
        var foundation: (any Error)?
        do { _ = try JSONDecoder().decode(Statuses.self, from: data) } catch { foundation = error }
        do {
            _ = try TrellisJSONDecoder().decode([Hero].self, from: data, at: "statuses")
            Issue.record("decoded")
        } catch {
            #expect(caseName(error) == "typeMismatch")
            #expect(keys(error) == ["statuses", "Index 1", "age"])
            #expect(keys(error) == foundation.flatMap(keys))
            #expect(description(error) == "Expected to decode Int but found a string instead. (line 4, column 28, at $.statuses[1].age)")
            #expect(description(error).hasPrefix(description(foundation!)))
        }
    }

    @Test func aKeyPathThatLeadsNowhereIsTheWrappersError() throws {
        let data = Data(#"{"status": []}"#.utf8)
        var foundation: (any Error)?
        do { _ = try JSONDecoder().decode(Statuses.self, from: data) } catch { foundation = error }
        do {
            _ = try TrellisJSONDecoder().decode([Hero].self, from: data, at: "statuses")
            Issue.record("decoded")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "statuses")
            #expect(context.codingPath.isEmpty)
            #expect(context.debugDescription.hasSuffix("(line 1, column 1, at $)"))
            #expect(caseName(foundation!) == "keyNotFound")
        }
        do {
            _ = try TrellisJSONDecoder().decode([Hero].self, from: Data(#"{"response": [1]}"#.utf8), at: "response.docs")
            Issue.record("decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["response"])
            #expect(context.debugDescription.hasSuffix("(line 1, column 14, at $.response)"))
        }
        do {
            _ = try TrellisJSONDecoder().decode([Int].self, from: Data(#"{"pages": [[1]]}"#.utf8), at: "pages.3")
            Issue.record("decoded")
        } catch DecodingError.valueNotFound(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["pages", "Index 3"])
        }
        do {
            _ = try TrellisJSONDecoder().decode([Int].self, from: Data(#"{"a": 1} x"#.utf8), at: "a")
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("line 1, column 10"))
        }
    }

    @Test func theKeyStrategyAppliesBelowTheKeyPathNotToIt() throws {
        let decoder = TrellisJSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let data = Data(#"{"search_results": [{"user_name": "ada", "follower_count": 3}, {"user_name": "bo", "follower_count": true}]}"#.utf8)
        do {
            _ = try decoder.decode([Snake].self, from: data, at: "search_results")
            Issue.record("decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["search_results", "Index 1", "followerCount"])
            #expect(context.debugDescription.hasSuffix("(line 1, column 102, at $.search_results[1].follower_count)"))
        }
        let good = Data(#"{"search_results": [{"user_name": "ada", "follower_count": 3}]}"#.utf8)
        #expect(try decoder.decode([Snake].self, from: good, at: "search_results") == [Snake(userName: "ada", followerCount: 3)])
    }
}

@Suite struct TrellisJSONDecoderElementsTests {
    private func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-elements-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    private func all<T>(_ elements: DecodedElements<T>) throws -> [T] {
        var values: [T] = []
        while let value = try elements.next() { values.append(value) }
        return values
    }

    @Test func anArrayAndJSONLinesDecodeAsFoundationDecodesTheArray() throws {
        let array = try file(heroesJSON(3000))
        let lines = try file(heroesJSON(3000, lines: true))
        defer {
            try? FileManager.default.removeItem(at: array)
            try? FileManager.default.removeItem(at: lines)
        }
        let foundation = try JSONDecoder().decode([Hero].self, from: Data(contentsOf: array))
        #expect(foundation == expectedHeroes(3000))
        for (url, format) in [(array, TrellisJSONDecoder.ElementsFormat.automatic), (array, .array), (lines, .automatic), (lines, .lines)] {
            let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: url, format: format)
            #expect(try all(elements) == foundation)
            #expect(elements.count == 3000)
            #expect(elements.bytesConsumed == elements.totalBytes)
            #expect(try elements.next() == nil)
        }
    }

    @Test func readsAPipeWithoutSeeking() throws {
        let pipe = Pipe()
        let text = Data(heroesJSON(500, lines: true).utf8)
        let writer = Thread {
            pipe.fileHandleForWriting.write(text)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: pipe.fileHandleForReading)
        #expect(try all(elements) == expectedHeroes(500))
        #expect(elements.totalBytes == nil)
    }

    @Test func asyncIterationYieldsTheSameElements() async throws {
        let data = Data(heroesJSON(10).utf8)
        var names: [String] = []
        for try await hero in try TrellisJSONDecoder().decodeElements(of: Hero.self, from: data) { names.append(hero.name) }
        #expect(names == (0..<10).map { "hero \($0)" })
    }

    @Test func aBadElementNamesItsIndexLineColumnAndPath() throws {
        var text = heroesJSON(6)
        text = text.replacingOccurrences(of: #""age":23"#, with: #""age":"23""#)
        let data = Data(text.utf8)
        var foundation: (any Error)?
        do { _ = try JSONDecoder().decode([Hero].self, from: data) } catch { foundation = error }
        for format in [TrellisJSONDecoder.ElementsFormat.array, .automatic] {
            let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: data, format: format)
            var decoded: [Hero] = []
            do {
                while let hero = try elements.next() { decoded.append(hero) }
                Issue.record("decoded")
            } catch {
                #expect(decoded == expectedHeroes(3))
                #expect(caseName(error) == "typeMismatch")
                #expect(keys(error) == ["Index 3", "age"])
                #expect(keys(error) == foundation.flatMap(keys))
                #expect(description(error).hasSuffix("(element 3, line 5, column 24, at $[3].age)"))
            }
            #expect(throws: DecodingError.self) { try elements.next() }
        }
        let lines = Data(heroesJSON(6, lines: true).replacingOccurrences(of: #""age":24"#, with: #""age":null"#).utf8)
        let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: lines)
        #expect(try elements.next()?.name == "hero 0")
        #expect(try elements.next()?.name == "hero 1")
        #expect(try elements.next()?.name == "hero 2")
        #expect(try elements.next()?.name == "hero 3")
        do {
            _ = try elements.next()
            Issue.record("decoded")
        } catch {
            #expect(caseName(error) == "valueNotFound")
            #expect(keys(error) == ["Index 4", "age"])
            #expect(description(error).hasSuffix("(element 4, line 5, column 24, at $[4].age)"))
        }
    }

    @Test func malformedJSONAfterGoodElementsIsDataCorruptedWithItsLine() throws {
        let text = "[\n" + #"{"name":"a","age":1,"powers":[]},"# + "\n" + #"{"name":"b","age":2,"powers":[]},"# + "\n" + #"{"name":"c" "age":3}"# + "\n]"
        let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: Data(text.utf8))
        #expect(try elements.next()?.name == "a")
        #expect(try elements.next()?.name == "b")
        do {
            _ = try elements.next()
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.isEmpty)
            let underlying = try #require(context.underlyingError as? JSONParseError)
            #expect(underlying.line == 4 && underlying.column == 13)
            #expect(underlying.message == "expected ',' or '}' after object member")
            #expect(context.debugDescription.hasPrefix("The given data was not valid JSON. "))
        }
        let trailing = try TrellisJSONDecoder().decodeElements(of: Int.self, from: Data("[1, 2] 3".utf8))
        #expect(try trailing.next() == 1)
        #expect(try trailing.next() == 2)
        #expect(throws: DecodingError.self) { try trailing.next() }
    }

    @Test func aTopLevelValueThatIsNotAnArrayIsATypeMismatch() throws {
        let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: Data(#"{"name": "x"}"#.utf8), format: .array)
        #expect(throws: DecodingError.self) { try elements.next() }
        let empty = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: Data(" \n ".utf8))
        #expect(try empty.next() == nil)
        let emptyArray = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: Data("\u{FEFF} [ ]".utf8))
        #expect(try emptyArray.next() == nil)
        #expect(throws: DecodingError.self) {
            _ = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: URL(fileURLWithPath: "/nonexistent/heroes.json"))
        }
    }

    @Test func repeatedKeysKeepTheFirstValueAsFoundationDoes() throws {
        let data = Data(#"[{"name":"a","age":1,"age":2,"powers":[]}]"#.utf8)
        let foundation = try JSONDecoder().decode([Hero].self, from: data)
        let elements = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: data)
        #expect(try elements.next() == foundation[0])
        let lines = try TrellisJSONDecoder().decodeElements(of: Hero.self, from: Data(#"{"name":"a","age":1,"age":2,"powers":[]}"#.utf8))
        #expect(try lines.next() == foundation[0])
    }
}
