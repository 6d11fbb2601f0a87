import Trellis

/// A model file that cannot be read: malformed JSON (with line and column), a key or
/// value that is not part of the format (with its JSON path in the file), a name the
/// model uses but the bindings do not define, or an invalid model (every problem, each
/// with the path of the entity or property concerned).
///
///     do {
///         _ = try ModelFile.read(from: url)
///     } catch let error as ModelFileError {
///         error.code          // .unknownKey
///         error.path          // $.entities[0].attributes[2].tpye
///         error.description   // "model.json: $.entities[0].attributes[2].tpye: unknown key 'tpye' …"
///     }
public struct ModelFileError: Error, Sendable, CustomStringConvertible {
    /// What is wrong; extensible like `CocoaError.Code`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name (`unknownKey`).
        public let rawValue: String
        /// A code; define new ones as static constants.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The raw value.
        public var description: String { rawValue }

        /// The file cannot be opened or read.
        public static let readFailed = Code(rawValue: "readFailed")
        /// The file is not JSON (RFC 8259); ``ModelFileError/line`` and ``ModelFileError/column`` say where.
        public static let malformedJSON = Code(rawValue: "malformedJSON")
        /// `format` is not `trellis-model`, or `formatVersion` is not one this reader knows.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// The file reads as a JSON payload (an array, or an object without any of the keys
        /// of a model file), given where a model file belongs; the description says what to do.
        public static let notAModel = Code(rawValue: "notAModel")
        /// A key the format does not define (typos must not pass silently).
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// A required key is absent.
        public static let missingKey = Code(rawValue: "missingKey")
        /// A value of the wrong JSON kind (a number where a string belongs, …).
        public static let wrongType = Code(rawValue: "wrongType")
        /// A value of the right kind that is not allowed (an unknown attribute type, a bad key path, …).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A convenience key and its `userInfo` spelling disagree.
        public static let conflictingAnnotation = Code(rawValue: "conflictingAnnotation")
        /// A transformer, entity mapper or dictionary transformer name the model uses is not bound.
        public static let unboundName = Code(rawValue: "unboundName")
        /// The model is invalid (see ``ModelFileError/problems``).
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// The file cannot be written (``ModelFile/write(to:)``): a directory, a path ending
        /// with `/`, or the system's reason (a full disk, no permission).
        public static let writeFailed = Code(rawValue: "writeFailed")

        /// Matches a thrown `ModelFileError` with this code: `catch ModelFileError.Code.unknownKey`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ModelFileError)?.code == code
        }
    }

    /// What is wrong.
    public let code: Code
    /// The file as the user named it (`Examples/twitter/model.json`); nil for in-memory input.
    public var file: String?
    /// Where in the file's JSON the problem is; nil for malformed JSON and unreadable files.
    public let path: JSONPath?
    /// 1-based line of a JSON syntax error.
    public let line: Int?
    /// 1-based column (Unicode scalars) of a JSON syntax error.
    public let column: Int?
    /// The explanation, without location.
    public let message: String
    /// For `.invalidModel`: the model validation problems, in model order.
    public let problems: [ModelError]
    /// For `.invalidModel`: the path of the entity or property each problem concerns (same order as ``problems``).
    public let problemPaths: [JSONPath]

    /// An error; ``ModelFile`` fills the file name when it read one.
    public init(
        _ code: Code, file: String? = nil, path: JSONPath? = nil, line: Int? = nil, column: Int? = nil,
        message: String, problems: [ModelError] = [], problemPaths: [JSONPath] = []
    ) {
        self.code = code
        self.file = file
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.problems = problems
        self.problemPaths = problemPaths
    }

    /// `model.json: $.entities[1].name: message`, `model.json:3:14: message`, or for an
    /// invalid model one problem per line, each with its path; for `.notAModel`, what to do
    /// instead (`trellis model infer FILE …`, or an import without `--model`).
    public var description: String {
        var prefix = file.map { "\($0)" } ?? ""
        if let line, let column {
            prefix += prefix.isEmpty ? "\(line):\(column)" : ":\(line):\(column)"
        } else if let path {
            prefix += prefix.isEmpty ? path.description : ": \(path)"
        }
        var head = prefix.isEmpty ? message : "\(prefix): \(message)"
        if code == .notAModel {
            head +=
                "; import it without --model (the model is inferred from the payload), or write a model for it with "
                + "'trellis model infer \(file ?? "FILE") --entity ENTITY [--at KEYPATH] -o model.json'"
        }
        guard !problems.isEmpty else { return head }
        let lines = zip(problems, problemPaths).map { problem, path in "  \(path): \(problem.description)" }
        return head + "\n" + lines.joined(separator: "\n")
    }
}
