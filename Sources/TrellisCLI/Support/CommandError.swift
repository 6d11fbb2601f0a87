/// A command failure: written as `error: <description>` on standard error, exit status 1.
/// The message names the file, and for data errors the JSON path, entity and attribute.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    /// What failed; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name (`importFailed`).
        public let rawValue: String
        /// A code; define new ones as static constants.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The model file cannot be read or is invalid.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// `--entity` (or an attribute option) names something the model does not have.
        public static let unknownName = Code(rawValue: "unknownName")
        /// An input file is missing, unreadable, or not JSON.
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// A value in the input does not fit the model.
        public static let importFailed = Code(rawValue: "importFailed")
        /// A delete the model's `deny` rule refuses (`trellis delete`); nothing was deleted.
        public static let deleteDenied = Code(rawValue: "deleteDenied")
        /// The store cannot be opened or written.
        public static let store = Code(rawValue: "store")
        /// An output file (`-o`) cannot be written.
        public static let writeFailed = Code(rawValue: "writeFailed")

        /// Matches a thrown `CommandError` with this code: `catch CommandError.Code.store`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? CommandError)?.code == code
        }
    }

    /// What failed.
    public let code: Code
    /// The text after `error: `.
    public let message: String

    /// A failure with the text to print after `error: `.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
