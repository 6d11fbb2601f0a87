/// A command failure: written as `error: <description>` on standard error, exit status 1.
/// The message names the file, and for data errors the JSON path, entity and attribute.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    /// What failed; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The model file cannot be read or is invalid.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// `--entity` (or an attribute option) names something the model does not have.
        public static let unknownName = Code(rawValue: "unknownName")
        /// An input file is missing, unreadable, or not JSON.
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// A value in the input does not fit the model.
        public static let importFailed = Code(rawValue: "importFailed")
        /// The store cannot be opened or written.
        public static let store = Code(rawValue: "store")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? CommandError)?.code == code
        }
    }

    public let code: Code
    /// The text after `error: `.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
