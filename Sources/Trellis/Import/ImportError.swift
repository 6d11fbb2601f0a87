/// A payload that cannot be imported. Names the JSON path of the failing value
/// (`$[3].powers[1].id`), the entity and property, and the value (shortened in
/// ``description``). The import that throws it changed nothing.
///
///     catch let error as ImportError where error.code == .invalidValue {
///         print(error)  // $[3].powers[1].id: cannot store "abc" in Power.id (integer64): not a decimal number
///     }
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name (stable across versions).
        public let rawValue: String
        /// A code with this name (for codes defined outside Trellis).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A value that cannot be coerced to its attribute's type (or a transformer result of the wrong type).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A value where an object (or a bare identifier) was expected.
        public static let notAnObject = Code(rawValue: "notAnObject")
        /// Bare identifiers for an entity without exactly one identity attribute.
        public static let noSingleIdentity = Code(rawValue: "noSingleIdentity")
        /// An array for a to-one relationship.
        public static let arrayForToOne = Code(rawValue: "arrayForToOne")
        /// An object or scalar for a to-many relationship (it takes an array or null).
        public static let notAnArray = Code(rawValue: "notAnArray")
        /// A required attribute without a value on a new (or completed) object; a required
        /// (non-optional) to-one without a destination once the import has set its links.
        public static let missingRequiredValue = Code(rawValue: "missingRequiredValue")
        /// A to-many with fewer destinations than its `minCount` (or none, when it is not
        /// optional) or more than its `maxCount`, once the import has set its links.
        public static let relationshipCount = Code(rawValue: "relationshipCount")
        /// An entity mapper chose an entity that is not the entity or one of its sub-entities,
        /// or an existing object is of a different sub-entity than the one chosen.
        public static let invalidEntity = Code(rawValue: "invalidEntity")
        /// An object (or bare identifier) of one entity has the identity of an object of
        /// another entity in the same identity namespace (siblings, or a parent's own
        /// instance): identities are unique across the entity that declares them and its
        /// sub-entities, and an object never changes its entity.
        public static let identityConflict = Code(rawValue: "identityConflict")
        /// A new object of an abstract entity without an entity mapper (or whose mapper gave nil).
        public static let abstractEntity = Code(rawValue: "abstractEntity")
        /// A value transformer, entity mapper or dictionary transformer name that is not registered.
        public static let unknownName = Code(rawValue: "unknownName")
        /// A value transformer, entity mapper or dictionary transformer threw.
        public static let transformFailed = Code(rawValue: "transformFailed")
        /// An import option that does not fit the model (an unknown key attribute, …).
        public static let invalidOption = Code(rawValue: "invalidOption")

        /// The code's name.
        public var description: String { rawValue }

        /// Matches an error of this type with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ImportError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// Where the failing value is.
    public let path: JSONPath
    /// The entity concerned.
    public let entity: String
    /// The attribute or relationship concerned, if any.
    public let property: String?
    /// The offending value, in full (``description`` shows at most 40 characters).
    public let value: JSONValue?
    /// What is wrong, with the value shortened.
    public let message: String
    /// The error behind this one, kept as it was thrown (a value transformer's
    /// `TransformError`, a dictionary transformer's or entity mapper's own error), when there
    /// is one; ``message`` says it in words. Not compared by `==`.
    public let cause: (any Error)?

    /// An error at `path` about `entity`'s `property` and the offending `value`, caused by `cause`.
    public init(
        _ code: Code, path: JSONPath, entity: String, property: String?, value: JSONValue?, message: String,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.path = path
        self.entity = entity
        self.property = property
        self.value = value
        self.message = message
        self.cause = cause
    }

    /// Equal when every field but ``cause`` is.
    public static func == (a: ImportError, b: ImportError) -> Bool {
        a.code == b.code && a.path == b.path && a.entity == b.entity && a.property == b.property && a.value == b.value
            && a.message == b.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(path)
        hasher.combine(entity)
        hasher.combine(property)
        hasher.combine(value)
        hasher.combine(message)
    }

    /// `$[3].powers[1].id: cannot store "abc" in Power.id (integer64): not a decimal number`.
    public var description: String { "\(path): \(message)" }
}
