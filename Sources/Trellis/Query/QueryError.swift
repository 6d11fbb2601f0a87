/// A predicate or fetch request that cannot be parsed or does not fit the entity it is run on
/// (not `PredicateError`, which Foundation has). Names the
/// column in the predicate text (1-based, in characters) when the predicate was parsed
/// from text, what was expected, and the fix: an unknown name lists the entity's
/// attributes and relationships, a type mismatch names both types.
///
///     do { _ = try ObjectPredicate("name BEGINSWITH") }
///     catch let error as QueryError where error.code == .syntax {
///         print(error)  // column 16: expected a value after BEGINSWITH, found the end of the predicate
///     }
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The text is not a predicate (an unexpected token, an unclosed parenthesis or string).
        public static let syntax = Code(rawValue: "syntax")
        /// Format arguments (`%@`, `%K`) and the arguments given do not match in number or kind.
        public static let arguments = Code(rawValue: "arguments")
        /// A key path names an attribute or relationship the entity does not have.
        public static let unknownProperty = Code(rawValue: "unknownProperty")
        /// A value whose type does not fit the attribute (a string compared with a number),
        /// or an operator that does not apply to it (`BEGINSWITH` on a number, `<` on binary).
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// `ANY`/`ALL`/`NONE` or `@count` on a key path without a to-many relationship, a key
        /// path through a to-many without one, or through two to-many relationships.
        public static let invalidKeyPath = Code(rawValue: "invalidKeyPath")
        /// A `MATCHES` pattern that is not a valid regular expression.
        public static let invalidRegularExpression = Code(rawValue: "invalidRegularExpression")
        /// A sort descriptor's key path (unknown, through a to-many, or of an unordered type),
        /// or a negative limit or offset.
        public static let invalidRequest = Code(rawValue: "invalidRequest")

        public var description: String { rawValue }

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? QueryError)?.code == code
        }
    }

    public let code: Code
    /// What is wrong and how to fix it.
    public let message: String
    /// The 1-based column in the predicate text (characters), when known.
    public let column: Int?
    /// The entity the predicate was resolved against, when the error comes from resolution.
    public let entity: String?
    /// The key path concerned, if any.
    public let keyPath: String?

    public init(_ code: Code, message: String, column: Int? = nil, entity: String? = nil, keyPath: String? = nil) {
        self.code = code
        self.message = message
        self.column = column
        self.entity = entity
        self.keyPath = keyPath
    }

    /// `column 16: message` (or the message alone).
    public var description: String {
        if let column { return "column \(column): \(message)" }
        return message
    }
}
