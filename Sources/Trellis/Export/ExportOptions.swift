/// How ``ObjectExporter`` writes objects as JSON.
///
///     var options = ExportOptions()
///     options.nilPolicy = .omit                 // leave out attributes without a value
///     options.relationshipStyle = .identifiers  // "publisher": 10 instead of a nested object
public struct ExportOptions: Sendable, Hashable {
    /// What an attribute or to-one without a value becomes.
    public enum NilPolicy: Sendable, Hashable {
        /// `null` at its key path (default) — where no other property has written a value:
        /// a null never replaces or blocks another property's value (an attribute at `user`
        /// without a value and one at `user.id` with one give `"user": {"id": …}`).
        case null
        /// Nothing: the key is left out.
        case omit
    }

    /// How relationships are written.
    public enum RelationshipStyle: Sendable, Hashable {
        /// Destinations as nested objects (default); each object is written in full at
        /// most once per exported top-level object (the first time it is met, depth
        /// first), and as its identifier wherever it appears again in that object's tree:
        /// cycles are cut and densely linked graphs stay small.
        case nested
        /// Destinations as identifiers: the identity attribute's JSON value; for a composite
        /// identity, an object of the identity attributes at their JSON key paths
        /// (`{"suit": "hearts", "rank": 1}`, which an import reads back as a reference).
        /// Destinations of an entity without identity attributes have no identifier and
        /// are nested objects, as with ``nested``; a sub-entity's identifier that the
        /// relationship's destination entity does not declare (Cat 1 through `Animal`) is
        /// the object's attributes.
        case identifiers
    }

    /// Whether an exported array holds the placeholders among its objects (objects known
    /// only by their identity, made from a bare identifier).
    public enum PlaceholderPolicy: Sendable, Hashable {
        /// Each placeholder at its place (default), as the object of its identity attributes
        /// at their key paths (`{"objectId": "teamMISSNG"}`; nested key paths rebuild nested
        /// objects), which an import of the entity reads back as a reference: into the same
        /// store the object is unchanged, into an empty one it is the same placeholder.
        case include
        /// Placeholders left out of the array, so every element is an object written in full.
        case exclude
    }

    /// Default `.null`.
    public var nilPolicy: NilPolicy = .null
    /// Default `.nested`.
    public var relationshipStyle: RelationshipStyle = .nested
    /// Nested objects deeper than this (the exported object is depth 1) are written as
    /// identifiers, so long chains (a retweet of a retweet of …) cannot exhaust the stack;
    /// an object without identity attributes that deep is left out. Default 64.
    public var maximumDepth = 64
    /// Default `.include`; applies to exported arrays (a single object is always written).
    /// Either way, a related object that is a placeholder is its identifier, as any reference.
    public var placeholders: PlaceholderPolicy = .include

    /// Defaults: `null` for nil, nested relationships, depth 64, placeholders included.
    public init() {}
}

/// An object that cannot be exported, naming the object and the property.
public struct ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name (stable across versions).
        public let rawValue: String
        /// A code with this name (for codes defined outside Trellis).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A value transformer's reverse threw.
        public static let transformFailed = Code(rawValue: "transformFailed")
        /// A `JSONTransformerName` that is not registered.
        public static let unknownName = Code(rawValue: "unknownName")
        /// Two key paths collide (`a` holds a value and `a.b` needs an object there).
        public static let keyPathConflict = Code(rawValue: "keyPathConflict")

        /// Matches an error of this type with this code, for `catch` patterns.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ExportError)?.code == code
        }
    }

    /// What went wrong.
    public let code: Code
    /// The object being written.
    public let objectID: ObjectID
    /// The attribute or relationship concerned.
    public let property: String
    /// A sentence saying what is wrong (values shortened).
    public let message: String

    /// An error of `code` about `objectID`'s `property`.
    public init(_ code: Code, objectID: ObjectID, property: String, message: String) {
        self.code = code
        self.objectID = objectID
        self.property = property
        self.message = message
    }

    /// `Character/1.name: message`.
    public var description: String { "\(objectID).\(property): \(message)" }
}
