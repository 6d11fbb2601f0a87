import Foundation
import Trellis

/// A Trellis JSON model file: an ``ObjectModel`` with its Groot-style annotations and
/// the `bindings` that give the names it uses (value transformers, entity mappers,
/// dictionary transformers) meaning without Swift code. The format is documented in
/// `docs/ModelFormat.md`.
///
///     let file = try ModelFile.read(from: URL(fileURLWithPath: "Examples/twitter/model.json"))
///     let context = ObjectContext(store: store, bindings: file.bindings)
///     try file.write(to: URL(fileURLWithPath: "copy.json"))   // the same format back
public struct ModelFile: Sendable {
    /// The entities, key convention and version label.
    public var model: ObjectModel
    /// The `bindings` section as declared (what ``write(to:)`` writes back).
    public var bindingDeclarations: BindingDeclarations
    /// The runtime bindings: the standard value transformers plus the declared names.
    public var bindings: MappingBindings

    /// A model file for `model` with `bindingDeclarations`.
    /// - Throws: ``ModelFileError`` when a declaration is invalid or a name the model uses is not bound.
    public init(model: ObjectModel, bindingDeclarations: BindingDeclarations = BindingDeclarations()) throws {
        try ModelFileDecoder.checkUses(entities: model.entities, bindings: bindingDeclarations)
        try ModelFileDecoder.checkEntityMappers(bindingDeclarations.entityMappers, in: model, at: .root.appending(key: "bindings"))
        self.model = model
        self.bindingDeclarations = bindingDeclarations
        self.bindings = try bindingDeclarations.makeBindings()
    }

    init(model: ObjectModel, bindingDeclarations: BindingDeclarations, bindings: MappingBindings) {
        self.model = model
        self.bindingDeclarations = bindingDeclarations
        self.bindings = bindings
    }

    // MARK: - Reading

    /// Reads the model file at `url`.
    ///
    /// - Throws: ``ModelFileError`` naming the file (as `url.relativePath`): `.readFailed`;
    ///   `.malformedJSON` with line and column; `.unknownKey`, `.wrongType`, … with the
    ///   JSON path in the file; `.invalidModel` with every validation problem.
    public static func read(from url: URL) throws -> ModelFile {
        let data = try contents(of: url, what: "a model file")
        do {
            return try read(data: data)
        } catch var error as ModelFileError {
            error.file = url.relativePath
            throw error
        }
    }

    /// The bytes of the file at `url` (a FIFO or a device, `/dev/null`, read to its end).
    /// - Throws: ``ModelFileError`` `.readFailed` naming the file: `no such file`,
    ///   `is a directory, not WHAT`, or `cannot be read: REASON` (the system's).
    static func contents(of url: URL, what: String) throws -> Data {
        do {
            return try FileContents.read(url)
        } catch {
            let reason: String
            switch error {
            case .noSuchFile: reason = "no such file"
            case .directory: reason = "is a directory, not \(what)"
            case .unreadable(let why): reason = "cannot be read: \(why)"
            }
            throw ModelFileError(.readFailed, file: url.relativePath, message: reason)
        }
    }

    /// Reads a model file from its bytes (UTF-8 JSON).
    public static func read(data: Data) throws -> ModelFile {
        try ModelFileDecoder.decode(try ModelFileJSON.parse(data))
    }

    /// Reads a model file from parsed JSON.
    public static func read(json: JSONValue) throws -> ModelFile {
        try ModelFileDecoder.decode(json)
    }

    // MARK: - Writing

    /// The model file as JSON: keys in the documented order, convenience keys for the
    /// Groot annotations (`identityAttributes`, `jsonKeyPath`, …) and the remaining
    /// user info under `userInfo`; defaults (`optional: true`, `deleteRule: nullify`, …) omitted.
    public var jsonValue: JSONValue { ModelFileEncoder.encode(self) }

    /// The model file as pretty-printed UTF-8 JSON text ending with a newline.
    public func data() -> Data { Data(ModelFileJSON.prettyText(jsonValue).utf8) }

    /// Writes ``data()`` to `url`: atomically (a temporary file renamed over it) when `url`
    /// is a regular file or nothing; through a symbolic link to what it points to (the
    /// link stays); in place into a FIFO or device, which is never replaced.
    ///
    /// - Throws: ``ModelFileError`` `.writeFailed` naming the file (`url.relativePath`),
    ///   with the reason: `cannot write: it is a directory`, `… the path ends with '/'`,
    ///   or the system's (`… No space left on device`).
    public func write(to url: URL) throws {
        do {
            try OutputFile.write(data(), to: url)
        } catch {
            throw ModelFileError(.writeFailed, file: url.relativePath, message: "cannot write: \(error.reason)")
        }
    }
}
