import Foundation

/// String comparisons of predicates, shared by every store so that all give the same
/// answers: ``InMemoryStore`` calls it directly and the SQLite store registers it as the SQL
/// function `trellis_text` (`docs/Queries.md`).
///
/// - Without options, strings compare by their UTF-8 bytes (Unicode scalars), as
///   ``AttributeValue`` equality and SQLite's BINARY collation do.
/// - `[c]` and `[d]` compare the folded strings: `String.folding(options:locale:)` with
///   `.caseInsensitive` / `.diacriticInsensitive` and no locale (Unicode full case folding,
///   so `ß` matches `ss`), then Unicode canonical composition (NFC), so a precomposed and a
///   decomposed `é` match. ASCII text folds by lowercasing its bytes, without building a string.
public enum PredicateText {
    /// `text` folded for `options` (unchanged without options).
    public static func fold(_ text: String, _ options: PredicateOptions) -> String {
        guard !options.isEmpty else { return text }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive) else { return text }
            return String(decoding: text.utf8.map(asciiLower), as: UTF8.self)
        }
        var foldOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldOptions.insert(.diacriticInsensitive) }
        return text.folding(options: foldOptions, locale: nil).precomposedStringWithCanonicalMapping
    }

    /// The regular expression of a `MATCHES` pattern (`[c]`: case-insensitive; `[d]`: the
    /// pattern folded, matched against folded text), which must match the whole text, as
    /// ICU's `uregex_matches` and NSPredicate's `MATCHES` decide: `"ab" MATCHES "a|ab"` holds
    /// although the first match of `a|ab` is `a`. The pattern is compiled as `(?:pattern)\z`
    /// and matched anchored at the start; a pattern that only compiles alone (one ending in
    /// an `(?x)` comment or an unterminated `\Q`) is compiled as written, and then only a
    /// first match that covers the whole text counts. The empty pattern matches the empty text.
    /// - Throws: when the pattern does not compile.
    public static func regularExpression(_ pattern: String, _ options: PredicateOptions) throws -> NSRegularExpression {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        let source = options.contains(.diacriticInsensitive) ? fold(pattern, [.diacriticInsensitive]) : pattern
        // The pattern alone must compile ("a)|(b" must not pass as "(?:a)|(b)\z").
        if !source.isEmpty { _ = try NSRegularExpression(pattern: source, options: regexOptions) }
        if let whole = try? NSRegularExpression(pattern: "(?:" + source + ")\\z", options: regexOptions) { return whole }
        return try NSRegularExpression(pattern: source, options: regexOptions)
    }

    @inline(__always)
    static func asciiLower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
}

/// One string comparison with a fixed operand, prepared once and run on many values
/// (a statement's rows, a store's objects): `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`,
/// `MATCHES` and `==`, with `[c]`/`[d]` (the operand is already folded, as
/// ``ResolvedPredicate`` holds it).
public final class PredicateTextMatcher {
    public let op: PredicateOperator
    public let options: PredicateOptions
    private let operand: [UInt8]
    private let likePattern: [LikeToken]
    private let regex: NSRegularExpression?
    private let operandIsASCII: Bool

    /// - Throws: for `MATCHES`, when the pattern does not compile.
    public init(op: PredicateOperator, operand: String, options: PredicateOptions) throws {
        self.op = op
        self.options = options
        self.operand = Array(operand.utf8)
        self.operandIsASCII = operand.utf8.allSatisfy { $0 < 0x80 }
        self.likePattern = op == .like ? LikeToken.parse(operand) : []
        self.regex = op == .matches ? try PredicateText.regularExpression(operand, options) : nil
    }

    /// Whether `text` satisfies the comparison.
    public func matches(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { matches(utf8: $0) }
    }

    /// Whether the UTF-8 text `bytes` satisfies the comparison (folding it first under
    /// `[c]`/`[d]`: ASCII text by lowercasing its bytes, other text through ``PredicateText/fold(_:_:)``).
    public func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if op == .matches { return matchesRegex(String(decoding: bytes, as: UTF8.self)) }
        if options.isEmpty { return compare(bytes) }
        if op == .beginsWith, operandIsASCII, let prefix = asciiPrefixMatch(bytes) { return prefix }
        var isASCII = true
        for b in bytes where b >= 0x80 {
            isASCII = false
            break
        }
        if isASCII {
            guard options.contains(.caseInsensitive) else { return compare(bytes) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { buffer in
                for i in 0..<bytes.count { buffer[i] = PredicateText.asciiLower(bytes[i]) }
                return compare(UnsafeBufferPointer(rebasing: buffer[0..<bytes.count]))
            }
        }
        var folded = PredicateText.fold(String(decoding: bytes, as: UTF8.self), options)
        return folded.withUTF8 { compare($0) }
    }

    /// BEGINSWITH with an ASCII operand, deciding from the text's first bytes alone: when
    /// they are ASCII and the byte after them is too (so no combining mark can join the last
    /// one under NFC), folding the rest of the text cannot change them. Nil: undecided.
    @inline(__always)
    private func asciiPrefixMatch(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
        let n = operand.count
        guard text.count >= n else { return text.allSatisfy { $0 < 0x80 } ? false : nil }
        if text.count > n, text[n] >= 0x80 { return nil }
        let fold = options.contains(.caseInsensitive)
        var equal = true
        for i in 0..<n {
            let b = text[i]
            if b >= 0x80 { return nil }
            if (fold ? PredicateText.asciiLower(b) : b) != operand[i] { equal = false }
        }
        return equal
    }

    private func matchesRegex(_ text: String) -> Bool {
        guard let regex else { return false }
        let subject = options.contains(.diacriticInsensitive) ? PredicateText.fold(text, [.diacriticInsensitive]) : text
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        guard let match = regex.firstMatch(in: subject, options: [.anchored], range: range) else { return false }
        return match.range == range
    }

    private func compare(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = operand.count
        switch op {
        case .equal:
            return text.count == n && text.elementsEqual(operand)
        case .beginsWith:
            return text.count >= n && text.prefix(n).elementsEqual(operand)
        case .endsWith:
            return text.count >= n && text.suffix(n).elementsEqual(operand)
        case .contains:
            guard n > 0 else { return true }
            guard text.count >= n else { return false }
            let first = operand[0]
            var i = 0
            let last = text.count - n
            while i <= last {
                if text[i] == first {
                    var j = 1
                    while j < n, text[i + j] == operand[j] { j += 1 }
                    if j == n { return true }
                }
                i += 1
            }
            return false
        case .like:
            let scalars = Array(String(decoding: text, as: UTF8.self).unicodeScalars)
            return LikeToken.match(likePattern[...], scalars[...])
        default:
            return false
        }
    }
}

/// A parsed `LIKE` pattern: `*` any run of characters, `?` one character, `\` escapes the next.
enum LikeToken: Equatable {
    case scalar(Unicode.Scalar)
    case one
    case any

    static func parse(_ pattern: String) -> [LikeToken] {
        var tokens: [LikeToken] = []
        var escaped = false
        for s in pattern.unicodeScalars {
            if escaped {
                tokens.append(.scalar(s))
                escaped = false
                continue
            }
            switch s {
            case "\\": escaped = true
            case "*": if tokens.last != .any { tokens.append(.any) }
            case "?": tokens.append(.one)
            default: tokens.append(.scalar(s))
            }
        }
        if escaped { tokens.append(.scalar("\\")) }
        return tokens
    }

    /// Iterative wildcard match with backtracking to the last `*` (linear in practice).
    static func match(_ pattern: ArraySlice<LikeToken>, _ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let p = Array(pattern)
        let t = Array(text)
        var pi = 0
        var ti = 0
        var star = -1
        var mark = 0
        while ti < t.count {
            if pi < p.count {
                switch p[pi] {
                case .one:
                    pi += 1
                    ti += 1
                    continue
                case .scalar(let s) where s == t[ti]:
                    pi += 1
                    ti += 1
                    continue
                case .any:
                    star = pi
                    mark = ti
                    pi += 1
                    continue
                default: break
                }
            }
            guard star >= 0 else { return false }
            pi = star + 1
            mark += 1
            ti = mark
        }
        while pi < p.count, p[pi] == .any { pi += 1 }
        return pi == p.count
    }
}
