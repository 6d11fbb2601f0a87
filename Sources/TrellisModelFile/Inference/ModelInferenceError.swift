import Trellis

/// Why a model could not be inferred, or could not extend a recorded model, with the
/// input and the JSON path of the value concerned.
///
///     twitter.json: $.statuses[3]: expected an object (each element becomes a Status), found a number
public struct ModelInferenceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An element of the collection is not an object.
        public static let notAnObject = Code(rawValue: "notAnObject")
        /// No objects were sampled (an empty array, an empty input).
        public static let noObjects = Code(rawValue: "noObjects")
        /// A key's values do not fit the type the recorded model gives it.
        public static let typeConflict = Code(rawValue: "typeConflict")
        /// The collection's objects are tables keyed by data (more than 1,000 distinct keys,
        /// or keys that are all numbers), not records: no attribute could hold their values.
        public static let notRecords = Code(rawValue: "notRecords")
        /// The root entity name cannot name an entity.
        public static let invalidEntityName = Code(rawValue: "invalidEntityName")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ModelInferenceError)?.code == code
        }
    }

    public let code: Code
    /// The input the value came from, as named when it was added (nil when unnamed).
    public var source: String?
    /// Where the value is in that input (`$.statuses[3].user.id`).
    public var path: JSONPath?
    /// The entity concerned, if any.
    public var entity: String?
    /// The attribute or relationship concerned, if any.
    public var property: String?
    public let message: String

    public init(
        _ code: Code, source: String? = nil, path: JSONPath? = nil, entity: String? = nil, property: String? = nil,
        message: String
    ) {
        self.code = code
        self.source = source
        self.path = path
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// `SOURCE: PATH: message` (the parts that are known).
    public var description: String {
        var parts: [String] = []
        if let source { parts.append(source) }
        if let path { parts.append(path.description) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}
