/// Picks the concrete sub-entity for a JSON object about to become a *new* object
/// (Groot's `entityMapperName`). Returns an entity name, or nil to keep the entity the
/// import was asked for. A result that is neither that entity nor one of its
/// sub-entities is an import error.
///
///     // Declarative: the value at `type` picks the entity.
///     EntityMapper(name: "VehicleMapper", keyPath: "type", table: ["car": "Car", "bike": "Bike"])
///     // Swift:
///     EntityMapper(name: "VehicleMapper") { object in object["wheels"] == 2 ? "Bike" : "Car" }
public struct EntityMapper: Sendable {
    public let name: String
    public let map: @Sendable (JSONObject) throws -> String?

    public init(name: String, map: @escaping @Sendable (JSONObject) throws -> String?) {
        self.name = name
        self.map = map
    }

    /// A mapper reading the scalar at `keyPath` (strings as is; numbers and booleans by
    /// their JSON text) and looking it up in `table`; values not in the table (or a
    /// missing key) give `defaultEntity` (nil: the entity the import was asked for).
    public init(name: String, keyPath: JSONKeyPath, table: [String: String], defaultEntity: String? = nil) {
        self.name = name
        self.map = { object in
            let key: String?
            switch keyPath.lookup(in: object) {
            case .present(.string(let s)): key = s
            case .present(.number(let n)): key = n.text
            case .present(.bool(let b)): key = b ? "true" : "false"
            default: key = nil
            }
            return key.flatMap { table[$0] } ?? defaultEntity
        }
    }
}

/// Rewrites each JSON object of an entity before identity extraction and mapping
/// (Groot's `JSONDictionaryTransformerName`), e.g. deriving `id` from `legacy_id`.
public struct DictionaryTransformer: Sendable {
    public let name: String
    public let transform: @Sendable (JSONObject) throws -> JSONObject

    public init(name: String, transform: @escaping @Sendable (JSONObject) throws -> JSONObject) {
        self.name = name
        self.transform = transform
    }
}

/// The meaning of every name a model refers to: value transformers
/// (`JSONTransformerName`), entity mappers (`entityMapperName`) and dictionary
/// transformers (`JSONDictionaryTransformerName`). In an app they are Swift code; on the
/// command line a model file's `bindings` section declares them.
public struct MappingBindings: Sendable {
    public var transformers: JSONValueTransformerRegistry
    public var entityMappers: [String: EntityMapper]
    public var dictionaryTransformers: [String: DictionaryTransformer]

    public init(
        transformers: JSONValueTransformerRegistry = .standard, entityMappers: [EntityMapper] = [],
        dictionaryTransformers: [DictionaryTransformer] = []
    ) {
        self.transformers = transformers
        self.entityMappers = Dictionary(entityMappers.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.dictionaryTransformers = Dictionary(dictionaryTransformers.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }
}
