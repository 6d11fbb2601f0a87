/// A problem with an object model, naming the entity and property.
public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        public static let duplicateEntity = Code(rawValue: "duplicateEntity")
        public static let unknownParent = Code(rawValue: "unknownParent")
        public static let inheritanceCycle = Code(rawValue: "inheritanceCycle")
        public static let duplicateProperty = Code(rawValue: "duplicateProperty")
        public static let unknownDestination = Code(rawValue: "unknownDestination")
        public static let inverseMismatch = Code(rawValue: "inverseMismatch")
        public static let unknownIdentityAttribute = Code(rawValue: "unknownIdentityAttribute")
        public static let invalidKeyPath = Code(rawValue: "invalidKeyPath")
        public static let invalidDefaultValue = Code(rawValue: "invalidDefaultValue")
        public static let invalidName = Code(rawValue: "invalidName")

        public static func ~= (code: Code, error: any Error) -> Bool {
            if let e = error as? ModelError { return e.code == code }
            if let e = error as? ModelValidationError { return e.problems.contains { $0.code == code } }
            return false
        }
    }

    public let code: Code
    /// The entity concerned.
    public let entity: String
    /// The property concerned, if any.
    public let property: String?
    public let message: String

    public init(_ code: Code, entity: String, property: String?, message: String) {
        self.code = code
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// `entity Character, property powers: message`. Control characters in the names are
    /// shown as `\u0000` escapes.
    public var description: String {
        if let property { return "entity \(ModelError.displayName(entity)), property \(ModelError.displayName(property)): \(message)" }
        return "entity \(ModelError.displayName(entity)): \(message)"
    }

    /// `name` with each control character (U+0000–U+001F, U+007F) written `\u0000`.
    static func displayName(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return name }
        var out = ""
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Every problem model validation found, in model order.
public struct ModelValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let problems: [ModelError]

    public init(problems: [ModelError]) { self.problems = problems }

    /// One problem per line, prefixed with `invalid model:` and the count.
    public var description: String {
        let header = problems.count == 1 ? "invalid model: " : "invalid model (\(problems.count) problems):\n  "
        return header + problems.map(\.description).joined(separator: "\n  ")
    }
}
