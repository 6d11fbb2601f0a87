extension ObjectPredicate {
    /// Parses NSPredicate format text, substituting `arguments` for `%@` (a value) and `%K`
    /// (a key path) in order:
    ///
    ///     try ObjectPredicate("name BEGINSWITH[cd] %@ AND rating > %@", "bat", 2.5)
    ///     try ObjectPredicate("ANY powers.name == 'Flight' OR powers.@count >= 3")
    ///     try ObjectPredicate("createdAt > '2011-08-21T18:02:52Z' AND publisher != nil")
    ///
    /// Grammar (keywords in any case): `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses,
    /// `TRUEPREDICATE`, `FALSEPREDICATE`; comparisons `[ANY|SOME|ALL|NONE] keyPath op[cd] value`
    /// with `==` (`=`), `!=` (`<>`), `<`, `<=` (`=<`), `>`, `>=` (`=>`), `BETWEEN`, `IN`,
    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`; values: strings in double or
    /// single quotes (escapes `\"`, `\'`, `\\`, `\n`, `\t`, `\uXXXX`), numbers (also `0x1F`, `0o17`,
    /// `0b101` integers), `nil`/`NULL`,
    /// `TRUE`/`YES`, `FALSE`/`NO`, `{a, b, …}`, `%@`. Key paths are names joined by dots; a
    /// name that is a keyword is written with `#` (`#in`); `keyPath.@count` counts a to-many.
    /// Parentheses, `NOT`s and lists nest at most 100 levels deep.
    /// - Throws: ``QueryError`` `.syntax` with the column and what was expected;
    ///   `.arguments` when the `%@`/`%K` count differs from the arguments'.
    public init(_ format: String, _ arguments: (any PredicateArgument)?...) throws {
        try self.init(format: format, arguments: arguments)
    }

    /// As ``init(_:_:)``, with the arguments as an array.
    public init(format: String, arguments: [(any PredicateArgument)?] = []) throws {
        var parser = PredicateParser(text: format, arguments: arguments.map { $0?.predicateValue ?? .null })
        self = try parser.parse()
    }
}

/// A recursive-descent parser of the NSPredicate format (see ``ObjectPredicate/init(_:_:)``).
///
/// It reads the text by Unicode scalar, not by `Character`: a combining mark after a quote
/// (`'\u{301}…'`) or an operator must not merge with it into one grapheme. Columns in errors
/// and comparisons count `Character`s (what an editor shows), 1-based.
struct PredicateParser {
    private let chars: [Unicode.Scalar]
    /// The 1-based `Character` column of each scalar (and of the end, at `chars.count`).
    private let columns: [Int]
    private var position = 0
    private var arguments: [PredicateValue]
    private var nextArgument = 0
    /// Parentheses, `NOT`s and `{…}` lists open around the current position.
    private var depth = 0

    /// How deeply parentheses, `NOT`s and lists may nest: deeper text is a syntax error,
    /// so that no recursion here (or in the resolver, the evaluator and the SQL the SQLite
    /// store writes) can run out of stack.
    static let maximumDepth = 100

    init(text: String, arguments: [PredicateValue]) {
        var chars: [Unicode.Scalar] = []
        var columns: [Int] = []
        for (i, character) in text.enumerated() {
            for scalar in character.unicodeScalars {
                chars.append(scalar)
                columns.append(i + 1)
            }
        }
        columns.append((columns.last ?? 0) + 1)
        self.chars = chars
        self.columns = columns
        self.arguments = arguments
    }

    /// The column of the scalar at `index` (1-based, in `Character`s).
    private func column(_ index: Int) -> Int { columns[min(max(index, 0), columns.count - 1)] }

    /// The scalars `range` as a string.
    private func text(_ range: Range<Int>) -> String { String(String.UnicodeScalarView(chars[range])) }

    mutating func parse() throws(QueryError) -> ObjectPredicate {
        skipSpace()
        guard position < chars.count else { throw syntax("expected a predicate, found an empty text") }
        let predicate = try parseOr()
        skipSpace()
        if position < chars.count {
            throw syntax("expected AND, OR or the end of the predicate, found \(describeHere())")
        }
        if nextArgument < arguments.count {
            throw QueryError(.arguments, message: "\(arguments.count) argument(s) given but the predicate uses \(nextArgument) (%@ or %K)")
        }
        return predicate
    }

    // MARK: - Logic

    private mutating func parseOr() throws(QueryError) -> ObjectPredicate {
        var parts = [try parseAnd()]
        while consumeKeyword("OR") || consumeSymbol("||") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws(QueryError) -> ObjectPredicate {
        var parts = [try parseNot()]
        while consumeKeyword("AND") || consumeSymbol("&&") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot() throws(QueryError) -> ObjectPredicate {
        skipSpace()
        let start = position
        if consumeKeyword("NOT") { return .not(try nested(at: start) { (p: inout PredicateParser) throws(QueryError) in try p.parseNot() }) }
        skipSpace()
        if peek() == "!", peek(1) != "=" {
            position += 1
            return .not(try nested(at: start) { (p: inout PredicateParser) throws(QueryError) in try p.parseNot() })
        }
        return try parsePrimary()
    }

    /// Runs `body` one nesting level deeper (a parenthesis, `NOT` or list opened at `start`).
    private mutating func nested<T>(at start: Int, _ body: (inout PredicateParser) throws(QueryError) -> T) throws(QueryError) -> T {
        guard depth < PredicateParser.maximumDepth else {
            throw QueryError(
                .syntax,
                message: "the predicate nests parentheses, NOT and lists more than "
                    + "\(PredicateParser.maximumDepth) levels deep; simplify it", column: self.column(start))
        }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func parsePrimary() throws(QueryError) -> ObjectPredicate {
        skipSpace()
        guard position < chars.count else { throw syntax("expected a comparison, found the end of the predicate") }
        if peek() == "(" {
            let open = position
            position += 1
            let inner = try nested(at: open) { (p: inout PredicateParser) throws(QueryError) in try p.parseOr() }
            skipSpace()
            guard peek() == ")" else {
                if position >= chars.count {
                    throw QueryError(
                        .syntax, message: "the parenthesis at column \(self.column(open)) is not closed; add ')'",
                        column: self.column(position))
                }
                throw syntax("expected ')' to close the parenthesis at column \(self.column(open)), found \(describeHere())")
            }
            position += 1
            return inner
        }
        if consumeKeyword("TRUEPREDICATE") { return .constant(true) }
        if consumeKeyword("FALSEPREDICATE") { return .constant(false) }
        return try parseComparison()
    }

    // MARK: - Comparisons

    private mutating func parseComparison() throws(QueryError) -> ObjectPredicate {
        skipSpace()
        let start = position
        var quantifier: PredicateQuantifier?
        if consumeKeyword("ANY") || consumeKeyword("SOME") {
            quantifier = .any
        } else if consumeKeyword("ALL") {
            quantifier = .all
        } else if consumeKeyword("NONE") {
            quantifier = .noneOf
        }
        skipSpace()
        let keyPath = try parseKeyPath()
        skipSpace()
        let operatorColumn = position
        guard let op = parseOperator() else {
            throw syntax(
                "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, "
                    + "CONTAINS, LIKE, MATCHES) after '\(keyPath)', found \(describeHere())")
        }
        let options = try parseOptions()
        skipSpace()
        let valueColumn = position
        guard position < chars.count else {
            throw QueryError(
                .syntax, message: "expected a value after \(op.rawValue), found the end of the predicate",
                column: self.column(position))
        }
        let value = try parseValue(after: op)
        _ = operatorColumn
        return .comparison(
            PredicateComparison(
                keyPath: keyPath, op: op, value: value, options: options, quantifier: quantifier,
                column: self.column(start), valueColumn: self.column(valueColumn)))
    }

    private mutating func parseKeyPath() throws(QueryError) -> String {
        if peek() == "%", peek(1) == "K" {
            let column = position
            position += 2
            guard nextArgument < arguments.count else {
                throw QueryError(
                    .arguments, message: "%K at column \(self.column(column)) has no argument; give one key path per %K",
                    column: self.column(column))
            }
            defer { nextArgument += 1 }
            guard case .string(let name) = arguments[nextArgument], !name.isEmpty else {
                throw QueryError(
                    .arguments, message: "the argument for %K at column \(self.column(column)) must be a key path string",
                    column: self.column(column))
            }
            return name
        }
        var components: [String] = []
        while true {
            guard let name = readName() else {
                if components.isEmpty {
                    throw syntax("expected a key path (an attribute or relationship name), found \(describeHere())")
                }
                throw syntax("expected a name after '.', found \(describeHere())")
            }
            components.append(name)
            guard peek() == "." else { break }
            position += 1
            if peek() == "@" {
                position += 1
                guard let aggregate = readName(), aggregate.lowercased() == "count" else {
                    throw syntax(
                        "expected @count after '\(components.joined(separator: "."))."
                            + "' (the only collection operator), found \(describeHere())")
                }
                components.append("@count")
                break
            }
        }
        return components.joined(separator: ".")
    }

    /// A name: letters, digits, `_`, `$`; `#` before a keyword; nil when none starts here.
    private mutating func readName() -> String? {
        var escaped = false
        if peek() == "#" {
            escaped = true
            position += 1
        }
        let start = position
        while position < chars.count, PredicateParser.isNameCharacter(chars[position]) { position += 1 }
        guard position > start else {
            if escaped { position -= 1 }
            return nil
        }
        if PredicateParser.isDigit(chars[start]) {
            position = start - (escaped ? 1 : 0)
            return nil
        }
        return text(start..<position)
    }

    private mutating func parseOperator() -> PredicateOperator? {
        let symbols: [(String, PredicateOperator)] = [
            ("==", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<=", .lessOrEqual), ("=<", .lessOrEqual),
            (">=", .greaterOrEqual), ("=>", .greaterOrEqual), ("=", .equal), ("<", .less), (">", .greater),
        ]
        for (symbol, op) in symbols where matches(symbol) {
            position += symbol.count
            return op
        }
        let words: [PredicateOperator] = [.between, .in, .beginsWith, .endsWith, .contains, .like, .matches]
        for op in words where consumeKeyword(op.rawValue, skippingSpace: false) { return op }
        return nil
    }

    private mutating func parseOptions() throws(QueryError) -> PredicateOptions {
        guard peek() == "[" else { return [] }
        let open = position
        position += 1
        var options: PredicateOptions = []
        while position < chars.count, chars[position] != "]" {
            switch chars[position] {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            case "n", "N", "l", "L": break  // [n] normalized, [l] locale: accepted, no effect
            default:
                throw syntax(
                    "unknown comparison option '\(chars[position])'; the options are [c] (case-insensitive) "
                        + "and [d] (diacritic-insensitive)")
            }
            position += 1
        }
        guard position < chars.count else {
            throw QueryError(.syntax, message: "the option bracket at column \(self.column(open)) is not closed; add ']'", column: self.column(open))
        }
        position += 1
        return options
    }

    // MARK: - Values

    private mutating func parseValue(after op: PredicateOperator) throws(QueryError) -> PredicateValue {
        skipSpace()
        guard position < chars.count else {
            throw QueryError(
                .syntax, message: "expected a value after \(op.rawValue), found the end of the predicate",
                column: self.column(position))
        }
        let c = chars[position]
        if c == "\"" || c == "'" { return .string(try readString()) }
        if c == "{" {
            let open = position
            position += 1
            var values: [PredicateValue] = []
            skipSpace()
            if peek() == "}" {
                position += 1
                return .list(values)
            }
            while true {
                values.append(try nested(at: open) { (p: inout PredicateParser) throws(QueryError) in try p.parseValue(after: op) })
                skipSpace()
                if peek() == "," {
                    position += 1
                    continue
                }
                if peek() == "}" {
                    position += 1
                    return .list(values)
                }
                if position >= chars.count {
                    throw QueryError(.syntax, message: "the list at column \(self.column(open)) is not closed; add '}'", column: self.column(position))
                }
                throw syntax("expected ',' or '}' in the list at column \(self.column(open)), found \(describeHere())")
            }
        }
        if c == "%" {
            let column = position
            guard let directive = readFormatDirective() else {
                throw syntax("expected %@ or %K (or %d, %f), found \(describeHere())")
            }
            if directive == "K" {
                throw QueryError(
                    .syntax, message: "%K stands for a key path and cannot be the value of a comparison; use %@",
                    column: self.column(column))
            }
            guard nextArgument < arguments.count else {
                throw QueryError(
                    .arguments,
                    message: "%\(directive) at column \(self.column(column)) has no argument; "
                        + "give one argument per %@", column: self.column(column))
            }
            defer { nextArgument += 1 }
            return arguments[nextArgument]
        }
        if c == "-" || c == "+" || PredicateParser.isDigit(c) || (c == "." && PredicateParser.isDigit(peek(1) ?? " ")) {
            return try readNumber()
        }
        let start = position
        if let word = readName() {
            switch word.uppercased() {
            case "NIL", "NULL": return .null
            case "TRUE", "YES": return .bool(true)
            case "FALSE", "NO": return .bool(false)
            default:
                position = start
                throw syntax(
                    "expected a value (a quoted string, a number, nil, TRUE, FALSE, {…} or %@), found '\(word)'; "
                        + "quote text: \"\(word)\"")
            }
        }
        throw syntax("expected a value (a quoted string, a number, nil, TRUE, FALSE, {…} or %@), found \(describeHere())")
    }

    private mutating func readFormatDirective() -> String? {
        guard peek() == "%" else { return nil }
        for directive in ["@", "K", "lld", "llu", "ld", "lu", "d", "i", "u", "f", "g"] where matches("%" + directive) {
            position += directive.count + 1
            return directive
        }
        return nil
    }

    private mutating func readString() throws(QueryError) -> String {
        let quote = chars[position]
        let open = position
        position += 1
        var out = ""
        while position < chars.count {
            let c = chars[position]
            if c == quote {
                position += 1
                return out
            }
            if c == "\\" {
                position += 1
                guard position < chars.count else { break }
                let e = chars[position]
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case "u":
                    let digits = text((position + 1)..<min(position + 5, chars.count))
                    guard digits.unicodeScalars.count == 4, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16),
                        let scalar = Unicode.Scalar(value)
                    else {
                        throw QueryError(.syntax, message: "expected four hexadecimal digits after \\u", column: self.column(position))
                    }
                    out.unicodeScalars.append(scalar)
                    position += 4
                default: out.unicodeScalars.append(e)
                }
                position += 1
                continue
            }
            out.unicodeScalars.append(c)
            position += 1
        }
        throw QueryError(
            .syntax, message: "the string starting at column \(self.column(open)) is not closed; add \(quote) at its end",
            column: self.column(open))
    }

    private mutating func readNumber() throws(QueryError) -> PredicateValue {
        let start = position
        if peek() == "-" || peek() == "+" { position += 1 }
        if peek() == "0", let radix = peek(1).flatMap(PredicateParser.radix(of:)) {
            return try readRadixNumber(start: start, radix: radix)
        }
        var digits = 0
        while position < chars.count, PredicateParser.isDigit(chars[position]) {
            position += 1
            digits += 1
        }
        var isInteger = true
        if peek() == ".", PredicateParser.isDigit(peek(1) ?? " ") || digits > 0 {
            isInteger = false
            position += 1
            while position < chars.count, PredicateParser.isDigit(chars[position]) {
                position += 1
                digits += 1
            }
        }
        if digits > 0, peek() == "e" || peek() == "E" {
            let mark = position
            position += 1
            if peek() == "-" || peek() == "+" { position += 1 }
            var exponentDigits = 0
            while position < chars.count, PredicateParser.isDigit(chars[position]) {
                position += 1
                exponentDigits += 1
            }
            if exponentDigits == 0 { position = mark } else { isInteger = false }
        }
        guard digits > 0 else {
            position = start
            throw syntax("expected a number, found \(describeHere())")
        }
        if position < chars.count, PredicateParser.isNameCharacter(chars[position]) {
            throw syntax("unexpected '\(chars[position])' in a number")
        }
        var text = text(start..<position)
        if text.hasPrefix("+") { text.removeFirst() }
        if isInteger, let value = Int64(text) { return .integer(value) }
        return .number(text)
    }

    /// 16, 8 or 2 for the prefix letter of `0x1F`, `0o17`, `0b101` (NSPredicate's integer literals).
    private static func radix(of c: Unicode.Scalar) -> Int? {
        switch c {
        case "x", "X": return 16
        case "o", "O": return 8
        case "b", "B": return 2
        default: return nil
        }
    }

    /// `0x…`, `0o…` or `0b…` (after an optional sign at `start`), as an integer.
    private mutating func readRadixNumber(start: Int, radix: Int) throws(QueryError) -> PredicateValue {
        let negative = chars[start] == "-"
        position += 2
        let digitsStart = position
        while position < chars.count, PredicateParser.digitValue(chars[position]).map({ $0 < radix }) == true { position += 1 }
        guard position > digitsStart else {
            throw syntax("expected \(radix == 16 ? "hexadecimal" : radix == 8 ? "octal" : "binary") digits after '0\(chars[position - 1])'")
        }
        if position < chars.count, PredicateParser.isNameCharacter(chars[position]) {
            throw syntax("unexpected '\(chars[position])' in a number")
        }
        let digits = text(digitsStart..<position)
        guard let magnitude = UInt64(digits, radix: radix),
            let value = negative
                ? (magnitude == UInt64(Int64.max) + 1 ? Int64.min : Int64(exactly: magnitude).map { -$0 })
                : Int64(exactly: magnitude)
        else {
            throw QueryError(.syntax, message: "\(text(start..<position)) is beyond the 64-bit integers", column: self.column(start))
        }
        return .integer(value)
    }

    // MARK: - Lexing

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < chars.count ? chars[position + offset] : nil
    }

    private mutating func skipSpace() {
        while position < chars.count, chars[position].properties.isWhitespace { position += 1 }
    }

    private func matches(_ symbol: String) -> Bool {
        var i = position
        for c in symbol.unicodeScalars {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
        }
        return true
    }

    private mutating func consumeSymbol(_ symbol: String) -> Bool {
        skipSpace()
        guard matches(symbol) else { return false }
        position += symbol.unicodeScalars.count
        return true
    }

    /// A keyword (any case) followed by something that cannot continue a name.
    private mutating func consumeKeyword(_ word: String, skippingSpace: Bool = true) -> Bool {
        if skippingSpace { skipSpace() }
        var i = position
        // ASCII letters only: "ın" (dotless ı) is not IN, though "ı".uppercased() is "I".
        for c in word.unicodeScalars {
            guard i < chars.count, PredicateParser.asciiUppercased(chars[i]) == c else { return false }
            i += 1
        }
        if i < chars.count, PredicateParser.isNameCharacter(chars[i]) { return false }
        position = i
        return true
    }

    private func describeHere() -> String {
        guard position < chars.count else { return "the end of the predicate" }
        let end = min(position + 12, chars.count)
        return "'\(text(position..<end))\(chars.count > end ? "…" : "")'"
    }

    private func syntax(_ message: String) -> QueryError {
        QueryError(.syntax, message: message, column: self.column(position))
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    /// The value of an ASCII hexadecimal digit.
    static func digitValue(_ c: Unicode.Scalar) -> Int? {
        switch c {
        case "0"..."9": return Int(c.value - 0x30)
        case "a"..."f": return Int(c.value - 0x61 + 10)
        case "A"..."F": return Int(c.value - 0x41 + 10)
        default: return nil
        }
    }

    static func asciiUppercased(_ c: Unicode.Scalar) -> Unicode.Scalar {
        c >= "a" && c <= "z" ? Unicode.Scalar(c.value - 0x20)! : c
    }

    /// Letters, digits, `_`, `$`, and the marks that combine with them (`e` + U+0301).
    static func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
        if c == "_" || c == "$" { return true }
        if c.isASCII { return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || isDigit(c) }
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }
}
