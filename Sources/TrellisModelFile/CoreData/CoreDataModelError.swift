import Trellis

/// A Core Data model that cannot be read or written: an unreadable file, malformed XML
/// (with the line and column libxml2 reports), a bundle without the requested
/// version, or a semantic problem naming the entity and property (an unknown attribute
/// type, an unknown destination entity, an inverse that does not point back, …).
///
///     do {
///         _ = try CoreDataModelReader.read(from: url)
///     } catch CoreDataModelError.Code.unknownAttributeType {
///         // "Shop.xcdatamodel/contents:14:9: entity Item, property price: unknown attribute type 'Money'; …"
///     }
public struct CoreDataModelError: Error, Sendable, CustomStringConvertible {
    /// What is wrong; extensible like `CocoaError.Code`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name (`unknownAttributeType`).
        public let rawValue: String
        /// A code named `rawValue` (for codes defined elsewhere, such as ``ModelError``'s).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A file or directory cannot be read (missing, unreadable, not a model bundle).
        public static let readFailed = Code(rawValue: "readFailed")
        /// The `contents` file is not well-formed XML; ``CoreDataModelError/line`` and
        /// ``CoreDataModelError/column`` say where.
        public static let malformedXML = Code(rawValue: "malformedXML")
        /// Well-formed XML whose root is not a Core Data `<model>` element.
        public static let notACoreDataModel = Code(rawValue: "notACoreDataModel")
        /// The requested (or current) version is not in the `.xcdatamodeld` bundle.
        public static let unknownVersion = Code(rawValue: "unknownVersion")
        /// A bundle with several versions and no readable `.xccurrentversion`.
        public static let missingCurrentVersion = Code(rawValue: "missingCurrentVersion")
        /// An XML attribute the format requires is absent (`name`, `attributeType`, `destinationEntity`).
        public static let missingAttribute = Code(rawValue: "missingAttribute")
        /// An `attributeType` Trellis does not know (a newer Xcode's type, or a typo).
        public static let unknownAttributeType = Code(rawValue: "unknownAttributeType")
        /// An XML attribute value that is not allowed (`optional="maybe"`, a default value
        /// that does not parse as its attribute type, an unknown `deletionRule`, …).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A relationship's destination entity is not in the model.
        public static let unknownDestination = Code(rawValue: "unknownDestination")
        /// A relationship's inverse does not exist or does not point back.
        public static let inverseMismatch = Code(rawValue: "inverseMismatch")
        /// The model is invalid in other ways; see ``CoreDataModelError/problems``.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// The writer cannot express a value in Core Data's format (e.g. a binary default value).
        public static let unrepresentable = Code(rawValue: "unrepresentable")
        /// A file or directory cannot be written.
        public static let writeFailed = Code(rawValue: "writeFailed")
        /// The writer does not replace what is there: an existing `.xcdatamodel` version directory.
        public static let alreadyExists = Code(rawValue: "alreadyExists")

        /// Matches a thrown `CoreDataModelError` with this code, or whose model problems
        /// include a ``ModelError`` with the same code name (`catch CoreDataModelError.Code.unknownDestination`).
        public static func ~= (code: Code, error: any Error) -> Bool {
            guard let error = error as? CoreDataModelError else { return false }
            return error.code == code || error.problems.contains { $0.code.rawValue == code.rawValue }
        }
    }

    /// What is wrong.
    public let code: Code
    /// The file concerned, as given (`Model.xcdatamodeld/Model 2.xcdatamodel/contents`); nil for in-memory input.
    public var file: String?
    /// 1-based line in the `contents` XML (of the syntax error, or of the element concerned).
    public let line: Int?
    /// 1-based column of a syntax error.
    public let column: Int?
    /// The entity concerned, if any.
    public let entity: String?
    /// The attribute or relationship concerned, if any.
    public let property: String?
    /// The explanation, without location.
    public let message: String
    /// Every problem model validation found (one for a single-problem error, whose code,
    /// entity and property are then that problem's; listed in ``description`` for `.invalidModel`).
    public let problems: [ModelError]
    /// The XML line of each problem's entity or property (same order as ``problems``; 0 when unknown).
    public let problemLines: [Int]

    /// An error with `code` and `message`, located by whatever of the rest is known.
    public init(
        _ code: Code, file: String? = nil, line: Int? = nil, column: Int? = nil, entity: String? = nil,
        property: String? = nil, message: String, problems: [ModelError] = [], problemLines: [Int] = []
    ) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.entity = entity
        self.property = property
        self.message = message
        self.problems = problems
        self.problemLines = problemLines
    }

    /// `contents:12:5: entity Character, property powers: message`; for an invalid model,
    /// one problem per line, each with its XML line.
    public var description: String {
        var location = file ?? ""
        if let line {
            location += location.isEmpty ? "line \(line)" : ":\(line)"
            if let column { location += ":\(column)" }
        }
        var subject = ""
        if let entity {
            subject = "entity \(entity)"
            if let property { subject += ", property \(property)" }
        }
        let head = [location, subject, message].filter { !$0.isEmpty }.joined(separator: ": ")
        guard code == .invalidModel, !problems.isEmpty else { return head }
        let lines = problems.enumerated().map { i, problem -> String in
            let line = i < problemLines.count ? problemLines[i] : 0
            return line > 0 ? "  line \(line): \(problem)" : "  \(problem)"
        }
        return head + "\n" + lines.joined(separator: "\n")
    }
}

/// Something in a Core Data model that Trellis reads but does not use, reported instead of
/// failing (an `Undefined` or `Object ID` attribute, a reserved user-info key).
public struct CoreDataModelWarning: Sendable, Hashable, CustomStringConvertible {
    /// The entity concerned.
    public let entity: String
    /// The property concerned, if any.
    public let property: String?
    /// 1-based line of the element in the `contents` XML (0 when unknown).
    public let line: Int
    /// What was noticed.
    public let message: String

    /// A warning about `property` of `entity` (nil: the entity itself) at `line`.
    public init(entity: String, property: String?, line: Int, message: String) {
        self.entity = entity
        self.property = property
        self.line = line
        self.message = message
    }

    /// `line 7: entity Character, property cache: message`.
    public var description: String {
        let subject = property.map { "entity \(entity), property \($0)" } ?? "entity \(entity)"
        return line > 0 ? "line \(line): \(subject): \(message)" : "\(subject): \(message)"
    }
}
