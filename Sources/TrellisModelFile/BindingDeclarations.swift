import Trellis

/// The `bindings` section of a model file: what the names a model uses mean, declared
/// without Swift code. ``makeBindings()`` turns the declarations into ``MappingBindings``.
///
///     "bindings": {
///       "transformers": {"StringToInteger": "integer-from-string",
///                        "TwitterDate": {"dateFormat": "EEE MMM dd HH:mm:ss Z yyyy"}},
///       "entityMappers": {"VehicleMapper": {"keyPath": "type", "entities": {"car": "Car"}, "default": "Car"}},
///       "dictionaryTransformers": {"LegacyID": {"rename": {"legacy_id": "id"}}}
///     }
public struct BindingDeclarations: Sendable, Hashable {
    /// Value transformer name → declaration.
    public var transformers: [String: TransformerDeclaration]
    /// Entity mapper name → declaration.
    public var entityMappers: [String: EntityMapperDeclaration]
    /// Dictionary transformer name → declaration.
    public var dictionaryTransformers: [String: DictionaryTransformerDeclaration]

    /// Declarations for the three kinds of names (each empty by default).
    public init(
        transformers: [String: TransformerDeclaration] = [:],
        entityMappers: [String: EntityMapperDeclaration] = [:],
        dictionaryTransformers: [String: DictionaryTransformerDeclaration] = [:]
    ) {
        self.transformers = transformers
        self.entityMappers = entityMappers
        self.dictionaryTransformers = dictionaryTransformers
    }

    /// `true` when nothing is declared.
    public var isEmpty: Bool { transformers.isEmpty && entityMappers.isEmpty && dictionaryTransformers.isEmpty }

    /// The names of the standard value transformers a model may use without binding them.
    public static var builtInTransformerNames: [String] { JSONValueTransformerRegistry.standard.names }

    /// The runtime bindings: the standard transformers plus the declared ones, and the
    /// declared entity mappers and dictionary transformers.
    ///
    /// - Throws: ``ModelFileError`` `.invalidValue` when a transformer aliases a name that
    ///   is not a built-in, or a key path cannot be parsed (the path points into a model
    ///   file's `bindings`: `$.bindings.transformers.StringToInteger`).
    public func makeBindings() throws -> MappingBindings {
        try makeBindings(at: .root.appending(key: "bindings"))
    }

    /// As ``makeBindings()``, with error paths under `section`: `$.bindings` in a model
    /// file, `$` in a bindings file (`$.transformers.StringToInteger`).
    func makeBindings(at section: JSONPath) throws -> MappingBindings {
        var registry = JSONValueTransformerRegistry.standard
        for name in transformers.keys.sorted() {
            let path = section.appending(key: "transformers").appending(key: name)
            switch transformers[name] {
            case .builtIn(let base)?:
                guard let transformer = try? JSONValueTransformerRegistry.standard.transformer(named: base) else {
                    throw ModelFileError(
                        .invalidValue, path: path,
                        message: "'\(base)' is not a built-in value transformer; built-ins: "
                            + BindingDeclarations.listing(BindingDeclarations.builtInTransformerNames))
                }
                registry.register(Trellis.JSONValueTransformer(name: name, forward: transformer.forward, reverse: transformer.reverse))
            case .dateFormat(let format)?:
                registry.register(Trellis.JSONValueTransformer.dateFormat(name: name, format: format))
            case nil:
                break
            }
        }
        var mappers: [EntityMapper] = []
        for name in entityMappers.keys.sorted() {
            guard let declaration = entityMappers[name] else { continue }
            let path = section.appending(key: "entityMappers").appending(key: name).appending(key: "keyPath")
            let keyPath: JSONKeyPath
            do {
                keyPath = try JSONKeyPath(parsing: declaration.keyPath)
            } catch {
                throw ModelFileError(.invalidValue, path: path, message: "\(error)")
            }
            mappers.append(
                EntityMapper(
                    name: name, keyPath: keyPath, table: declaration.entities,
                    defaultEntity: declaration.defaultEntity))
        }
        var dictionaryTransformers: [DictionaryTransformer] = []
        for name in self.dictionaryTransformers.keys.sorted() {
            guard let declaration = self.dictionaryTransformers[name] else { continue }
            let path = section.appending(key: "dictionaryTransformers").appending(key: name)
            let steps = try declaration.compiled(at: path)
            dictionaryTransformers.append(DictionaryTransformer(name: name) { object in try steps.apply(to: object) })
        }
        return MappingBindings(transformers: registry, entityMappers: mappers, dictionaryTransformers: dictionaryTransformers)
    }

    /// `a, b, c` (or `none`).
    static func listing(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}

/// What a transformer name in the bindings stands for.
public enum TransformerDeclaration: Sendable, Hashable {
    /// Another name for a built-in transformer: `"StringToInteger": "integer-from-string"`.
    case builtIn(String)
    /// Dates as text in a fixed format (Unicode TR35 date pattern, `en_US_POSIX`, UTC unless
    /// the pattern has a zone): `"TwitterDate": {"dateFormat": "EEE MMM dd HH:mm:ss Z yyyy"}`.
    case dateFormat(String)
}

/// A declarative entity mapper: the scalar at `keyPath` looked up in `entities`.
public struct EntityMapperDeclaration: Sendable, Hashable {
    /// Where the discriminating value is (`type`, `meta.kind`).
    public var keyPath: String
    /// Value (strings as is, numbers and booleans by their JSON text) → entity name.
    public var entities: [String: String]
    /// The entity for values not in the table; nil keeps the entity the import asked for.
    public var defaultEntity: String?

    /// A mapper reading `keyPath` and looking its value up in `entities`.
    public init(keyPath: String, entities: [String: String], defaultEntity: String? = nil) {
        self.keyPath = keyPath
        self.entities = entities
        self.defaultEntity = defaultEntity
    }
}

/// A declarative dictionary transformer. The steps run in this fixed order on each JSON
/// object: `copy`, then `rename`, then `set`, then `remove`. Every key is a key path
/// (`user.id`), so nested values can be moved too.
///
///     {"copy": {"id_str": "identifier"}, "rename": {"legacy_id": "id"},
///      "set": {"kind": "car"}, "remove": ["debug"]}
public struct DictionaryTransformerDeclaration: Sendable, Hashable {
    /// source key path → destination key path; the value is duplicated (when present, `null` included).
    public var copy: [String: String]
    /// source key path → destination key path; the value moves (when present, `null` included).
    public var rename: [String: String]
    /// key path → constant value, always written.
    public var set: [String: JSONValue]
    /// key paths removed (absent ones are ignored).
    public var remove: [String]

    /// A transformer with the given steps (each empty by default).
    public init(
        copy: [String: String] = [:], rename: [String: String] = [:], set: [String: JSONValue] = [:],
        remove: [String] = []
    ) {
        self.copy = copy
        self.rename = rename
        self.set = set
        self.remove = remove
    }

    /// Parses every key path once; `path` is where the declaration is in the file.
    func compiled(at path: JSONPath) throws -> CompiledDictionarySteps {
        func parse(_ text: String, _ at: JSONPath) throws -> JSONKeyPath {
            do { return try JSONKeyPath(parsing: text) } catch {
                throw ModelFileError(.invalidValue, path: at, message: "\(error)")
            }
        }
        var steps = CompiledDictionarySteps()
        for key in copy.keys.sorted() {
            let at = path.appending(key: "copy").appending(key: key)
            steps.copy.append((try parse(key, at), try parse(copy[key] ?? "", at)))
        }
        for key in rename.keys.sorted() {
            let at = path.appending(key: "rename").appending(key: key)
            steps.rename.append((try parse(key, at), try parse(rename[key] ?? "", at)))
        }
        for key in set.keys.sorted() {
            steps.set.append((try parse(key, path.appending(key: "set").appending(key: key)), set[key] ?? .null))
        }
        for (i, key) in remove.enumerated() {
            steps.remove.append(try parse(key, path.appending(key: "remove").appending(index: i)))
        }
        return steps
    }
}

/// The parsed steps of a ``DictionaryTransformerDeclaration``.
struct CompiledDictionarySteps: Sendable {
    var copy: [(JSONKeyPath, JSONKeyPath)] = []
    var rename: [(JSONKeyPath, JSONKeyPath)] = []
    var set: [(JSONKeyPath, JSONValue)] = []
    var remove: [JSONKeyPath] = []

    func apply(to object: JSONObject) throws -> JSONObject {
        var root = JSONValue.object(object)
        for (source, destination) in copy {
            if let value = Self.lookup(source, in: root) { try destination.set(value, in: &root) }
        }
        for (source, destination) in rename {
            if let value = Self.lookup(source, in: root) {
                Self.remove(source.components[...], from: &root)
                try destination.set(value, in: &root)
            }
        }
        for (destination, value) in set { try destination.set(value, in: &root) }
        for keyPath in remove { Self.remove(keyPath.components[...], from: &root) }
        return root.objectValue ?? object
    }

    /// The value at `keyPath` (`null` included); nil when missing.
    private static func lookup(_ keyPath: JSONKeyPath, in root: JSONValue) -> JSONValue? {
        switch keyPath.lookup(in: root) {
        case .missing: return nil
        case .null: return .null
        case .present(let value): return value
        }
    }

    /// Removes the member or array element at `components`: `debug`, `meta.debug`,
    /// `items.0` (the first element), `items.0.secret`. A missing key, an index out of
    /// bounds or a scalar on the way removes nothing.
    private static func remove(_ components: ArraySlice<JSONKeyPath.Component>, from node: inout JSONValue) {
        guard let first = components.first else { return }
        switch node {
        case .object(var object):
            if components.count == 1 {
                object[first.key] = nil
            } else if var child = object[first.key] {
                remove(components.dropFirst(), from: &child)
                object[first.key] = child
            }
            node = .object(object)
        case .array(var array):
            guard let i = first.index, i < array.count else { return }
            if components.count == 1 {
                array.remove(at: i)
            } else {
                remove(components.dropFirst(), from: &array[i])
            }
            node = .array(array)
        default:
            return
        }
    }
}
