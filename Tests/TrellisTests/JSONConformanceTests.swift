import Foundation
import Testing
import TrellisTestSupport

@testable import Trellis

/// JSONTestSuite (Tests/Fixtures/jsontestsuite): `y_` accepted, `n_` rejected with a
/// located error, `i_` decided per file (see ``JSONReader``'s notes).
@Suite struct JSONConformanceTests {
    static let directory = Fixtures.url("jsontestsuite")

    static func files(prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    @Test func suiteIsPresent() {
        #expect(Self.files(prefix: "y_").count == 95)
        #expect(Self.files(prefix: "n_").count == 188)
        #expect(Self.files(prefix: "i_").count == 35)
    }

    @Test(arguments: files(prefix: "y_"))
    func acceptsValidDocument(_ name: String) throws {
        let bytes = try Self.bytes(name)
        #expect(throws: Never.self) { _ = try JSONReader.parse(bytes) }
    }

    @Test(arguments: files(prefix: "n_"))
    func rejectsInvalidDocumentWithLocation(_ name: String) throws {
        let bytes = try Self.bytes(name)
        let lineCount = bytes.filter { $0 == 0x0A }.count + 1
        do {
            let value = try JSONReader.parse(bytes)
            Issue.record("accepted \(name): \(value)")
        } catch {
            #expect(error.byteOffset >= 0 && error.byteOffset <= bytes.count)
            #expect(error.line >= 1 && error.line <= lineCount)
            #expect(error.column >= 1 && error.column <= bytes.count + 1)
            #expect(!error.message.isEmpty)
            #expect(error.excerpt.hasSuffix("^"))
            #expect(error.description.hasPrefix("line \(error.line), column \(error.column): "))
        }
    }

    struct ImplementationDefinedCase: Sendable, CustomTestStringConvertible {
        var file: String
        /// nil when accepted; else the code of the error.
        var rejection: JSONParseError.Code?
        var testDescription: String { file }
    }

    /// The decision for every `i_` file. Numbers of any size are accepted (kept as text);
    /// lone surrogate escapes and invalid UTF-8 are rejected; a UTF-8 BOM is skipped;
    /// UTF-16 input is rejected; 500 levels of nesting are within the default 512.
    static let implementationDefined: [ImplementationDefinedCase] = [
        .init(file: "i_number_double_huge_neg_exp.json", rejection: nil),
        .init(file: "i_number_huge_exp.json", rejection: nil),
        .init(file: "i_number_neg_int_huge_exp.json", rejection: nil),
        .init(file: "i_number_pos_double_huge_exp.json", rejection: nil),
        .init(file: "i_number_real_neg_overflow.json", rejection: nil),
        .init(file: "i_number_real_pos_overflow.json", rejection: nil),
        .init(file: "i_number_real_underflow.json", rejection: nil),
        .init(file: "i_number_too_big_neg_int.json", rejection: nil),
        .init(file: "i_number_too_big_pos_int.json", rejection: nil),
        .init(file: "i_number_very_big_negative_int.json", rejection: nil),
        .init(file: "i_object_key_lone_2nd_surrogate.json", rejection: .loneSurrogate),
        .init(file: "i_string_1st_surrogate_but_2nd_missing.json", rejection: .loneSurrogate),
        .init(file: "i_string_1st_valid_surrogate_2nd_invalid.json", rejection: .loneSurrogate),
        .init(file: "i_string_UTF-16LE_with_BOM.json", rejection: .unexpectedCharacter),
        .init(file: "i_string_UTF-8_invalid_sequence.json", rejection: .invalidUTF8),
        .init(file: "i_string_UTF8_surrogate_U+D800.json", rejection: .invalidUTF8),
        .init(file: "i_string_incomplete_surrogate_and_escape_valid.json", rejection: .loneSurrogate),
        .init(file: "i_string_incomplete_surrogate_pair.json", rejection: .loneSurrogate),
        .init(file: "i_string_incomplete_surrogates_escape_valid.json", rejection: .loneSurrogate),
        .init(file: "i_string_invalid_lonely_surrogate.json", rejection: .loneSurrogate),
        .init(file: "i_string_invalid_surrogate.json", rejection: .loneSurrogate),
        .init(file: "i_string_invalid_utf-8.json", rejection: .invalidUTF8),
        .init(file: "i_string_inverted_surrogates_U+1D11E.json", rejection: .loneSurrogate),
        .init(file: "i_string_iso_latin_1.json", rejection: .invalidUTF8),
        .init(file: "i_string_lone_second_surrogate.json", rejection: .loneSurrogate),
        .init(file: "i_string_lone_utf8_continuation_byte.json", rejection: .invalidUTF8),
        .init(file: "i_string_not_in_unicode_range.json", rejection: .invalidUTF8),
        .init(file: "i_string_overlong_sequence_2_bytes.json", rejection: .invalidUTF8),
        .init(file: "i_string_overlong_sequence_6_bytes.json", rejection: .invalidUTF8),
        .init(file: "i_string_overlong_sequence_6_bytes_null.json", rejection: .invalidUTF8),
        .init(file: "i_string_truncated-utf-8.json", rejection: .invalidUTF8),
        .init(file: "i_string_utf16BE_no_BOM.json", rejection: .unexpectedCharacter),
        .init(file: "i_string_utf16LE_no_BOM.json", rejection: .unexpectedCharacter),
        .init(file: "i_structure_500_nested_arrays.json", rejection: nil),
        .init(file: "i_structure_UTF-8_BOM_empty_object.json", rejection: nil),
    ]

    @Test func everyImplementationDefinedFileHasADecision() {
        #expect(Self.implementationDefined.map(\.file) == Self.files(prefix: "i_"))
    }

    @Test(arguments: implementationDefined)
    func implementationDefinedDecision(_ testCase: ImplementationDefinedCase) throws {
        let bytes = try Self.bytes(testCase.file)
        do {
            _ = try JSONReader.parse(bytes)
            #expect(testCase.rejection == nil, "accepted")
        } catch {
            #expect(error.code == testCase.rejection, "\(error)")
        }
    }

    @Test func loneSurrogatesBecomeReplacementCharactersWhenAsked() throws {
        let options = JSONReader.Options(loneSurrogatePolicy: .replace)
        for testCase in Self.implementationDefined where testCase.rejection == .loneSurrogate {
            #expect(throws: Never.self, "\(testCase.file)") { _ = try JSONReader.parse(Self.bytes(testCase.file), options: options) }
        }
        #expect(try JSONReader.parse(#"["\uDd1e\uD834"]"#, options: options) == ["\u{FFFD}\u{FFFD}"])
        #expect(try JSONReader.parse(#"["\uD800\n"]"#, options: options) == ["\u{FFFD}\n"])
    }

    @Test func byteOrderMarkIsRejectedWhenNotAllowed() throws {
        let options = JSONReader.Options(allowsByteOrderMark: false)
        let error = try #require(throws: JSONParseError.self) {
            try JSONReader.parse(Self.bytes("i_structure_UTF-8_BOM_empty_object.json"), options: options)
        }
        #expect(error.code == .unexpectedCharacter)
        #expect(error.message == "byte order mark (U+FEFF) is not allowed")
        #expect(error.line == 1 && error.column == 1)
    }
}
