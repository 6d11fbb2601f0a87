/// A misuse of an ``ObjectContext`` or a ``ManagedObject``, or a rule the graph enforces
/// (a delete rule, a required value), naming the entity and property.
///
///     do { try context.delete(publisher) }
///     catch ContextError.Code.deleteDenied { … }
public struct ContextError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name (stable across versions).
        public let rawValue: String
        /// A code with this name (for codes defined outside Trellis).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No attribute or relationship of that name (or of that kind: to-one vs to-many).
        public static let unknownProperty = Code(rawValue: "unknownProperty")
        /// A value of the wrong ``AttributeType``.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// An instance of an abstract entity was asked for.
        public static let abstractEntity = Code(rawValue: "abstractEntity")
        /// A delete rule `deny` refused the deletion.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// A required attribute has no value at save time.
        public static let missingRequiredValue = Code(rawValue: "missingRequiredValue")
        /// The object was deleted or belongs to no (or another) context.
        public static let objectDeleted = Code(rawValue: "objectDeleted")
        /// Identity values of the wrong number or type, or already used by another object.
        public static let invalidIdentity = Code(rawValue: "invalidIdentity")
        /// A destination of the wrong entity.
        public static let wrongDestination = Code(rawValue: "wrongDestination")

        /// Matches an error of this type with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ContextError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// The entity concerned.
    public let entity: String
    /// The attribute or relationship concerned, if any.
    public let property: String?
    /// A sentence saying what is wrong (values shortened).
    public let message: String

    /// An error of `code` about `entity`'s `property` (nil: the entity as a whole).
    public init(_ code: Code, entity: String, property: String?, message: String) {
        self.code = code
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// `Character.name: message` (or `Character: message`).
    public var description: String {
        if let property { return "\(entity).\(property): \(message)" }
        return "\(entity): \(message)"
    }
}
