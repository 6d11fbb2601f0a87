import Foundation
import Testing

@testable import Trellis

@Suite struct JSONKeyPathTests {
    let document: JSONValue = [
        "user": ["name": "Ada", "bio": nil, "address": ["city": "London"]],
        "tags": ["x", "y"],
        "names": ["138586341": "Opera"],
        "a.b": 1,
        "count": 3,
    ]

    struct ReadCase: Sendable, CustomTestStringConvertible {
        let path: String
        let expected: JSONLookup
        var testDescription: String { path }
    }

    @Test(arguments: [
        ReadCase(path: "user.name", expected: .present("Ada")),
        ReadCase(path: "user.address.city", expected: .present("London")),
        ReadCase(path: "user.bio", expected: .null),
        ReadCase(path: "user.bio.x", expected: .missing),  // null in the middle → missing
        ReadCase(path: "count.x", expected: .missing),  // scalar in the middle → missing
        ReadCase(path: "user.missing", expected: .missing),
        ReadCase(path: "tags.0", expected: .present("x")),
        ReadCase(path: "tags.1", expected: .present("y")),
        ReadCase(path: "tags.2", expected: .missing),  // out of bounds
        ReadCase(path: "tags.name", expected: .missing),  // key into an array
        ReadCase(path: "names.138586341", expected: .present("Opera")),  // digits as an object key
        ReadCase(path: #"a\.b"#, expected: .present(1)),  // escaped dot
        ReadCase(path: "a.b", expected: .missing),
    ])
    func lookupDistinguishesMissingNullAndPresent(_ c: ReadCase) throws {
        #expect(try JSONKeyPath(parsing: c.path).lookup(in: document) == c.expected)
    }

    @Test func literalKeyIsNotSplit() {
        #expect(JSONKeyPath(key: "a.b").lookup(in: document) == .present(1))
        #expect(JSONKeyPath(key: "a.b").components.count == 1)
    }

    @Test(arguments: [
        ("", JSONKeyPathError.Code.empty, 0),
        ("a..b", .emptyComponent, 3),
        (".a", .emptyComponent, 1),
        ("a.", .emptyComponent, 2),
        ("a\\", .danglingEscape, 2),
        ("a\\x", .invalidEscape, 3),
    ])
    func invalidPathsAreErrors(text: String, code: JSONKeyPathError.Code, position: Int) {
        #expect {
            try JSONKeyPath(parsing: text)
        } throws: { error in
            let e = error as? JSONKeyPathError
            return e?.code == code && e?.position == position
        }
    }

    @Test func writingCreatesIntermediateObjects() throws {
        var root: JSONValue = .null
        try JSONKeyPath(parsing: "real_name.foo.bar.name").set("Bruce", in: &root)
        try JSONKeyPath(parsing: "real_name.foo.id").set(1, in: &root)
        #expect(root == ["real_name": ["foo": ["bar": ["name": "Bruce"], "id": 1]]])
    }

    @Test func writingIntoArraysAndAcrossScalars() throws {
        var root: JSONValue = ["tags": ["x"], "n": 1]
        try JSONKeyPath(parsing: "tags.1").set("y", in: &root)
        try JSONKeyPath(parsing: "tags.0").set("z", in: &root)
        #expect(root["tags"] == ["z", "y"])
        #expect(throws: JSONKeyPathError.self) { try JSONKeyPath(parsing: "n.x").set(2, in: &root) }
        #expect(throws: JSONKeyPathError.self) { try JSONKeyPath(parsing: "tags.5").set(2, in: &root) }
        #expect(root["n"] == 1)
    }

    @Test func descriptionEscapesAndRoundTrips() throws {
        let path = try JSONKeyPath(parsing: #"a\.b.c\\d.0"#)
        #expect(path.components.map(\.key) == ["a.b", #"c\d"#, "0"])
        #expect(path.description == #"a\.b.c\\d.0"#)
        #expect(try JSONKeyPath(parsing: path.description) == path)
    }

    @Test func jsonPathDescription() {
        let path = JSONPath.root.appending(key: "statuses").appending(index: 3).appending(key: "user")
            .appending(key: "id").appending(key: "a.b").appending(key: "138")
        #expect(path.description == #"$.statuses[3].user.id["a.b"]["138"]"#)
    }

    @Test func jsonPathThroughAKeyPathShowsArrayIndexes() throws {
        let value: JSONValue = ["a": [["id": 1], ["b": ["7": "x"]]], "n": 1]
        #expect(JSONPath.root.appending(try JSONKeyPath(parsing: "a.1.b.7"), readingFrom: value).description == #"$.a[1].b["7"]"#)
        #expect(JSONPath.root.appending(try JSONKeyPath(parsing: "a.5.id"), readingFrom: value).description == #"$.a[5].id"#)
        #expect(JSONPath.root.appending(try JSONKeyPath(parsing: "n.0"), readingFrom: value).description == #"$.n["0"]"#)
        #expect(JSONPath.root.appending(try JSONKeyPath(parsing: "a.1"), readingFrom: nil).description == #"$.a["1"]"#)
    }

    /// Keys in paths, model files and written JSON are quoted by one rule (``JSONWriter/quoted(_:)``).
    @Test func keysAreQuotedAsTheWriterQuotesStrings() throws {
        let key = "q\"\\\u{8}\u{C}\n\r\t\u{1}\u{1F}é/"
        let quoted = #""q\"\\\b\f\n\r\t\u0001\u001fé/""#
        #expect(JSONWriter.quoted(key) == quoted)
        #expect(JSONPath.root.appending(key: key).description == "$[" + quoted + "]")
        #expect(try JSONWriter.string(for: .string(key)) == quoted)
        #expect(try JSONReader.parse(Data(quoted.utf8)) == .string(key))
    }
}
