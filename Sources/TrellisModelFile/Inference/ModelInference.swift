import Foundation
import Trellis

/// Infers a model from sample JSON: the entities, attributes, identities and relationships
/// that payloads like the samples need (the rules, each with an example, are in
/// docs/ModelInference.md).
///
///     let inference = ModelInference(rootEntity: "Status")
///     let stream = try JSONArrayStream(contentsOf: url, at: "statuses")
///     while let element = try stream.nextElement() {
///         try inference.add(element.value, at: stream.collectionPath.appending(index: element.index), source: "twitter.json")
///     }
///     let inferred = try inference.inferredModel()
///     try inferred.file.write(to: URL(fileURLWithPath: "model.json"))
///
/// Each object added is summarised at once (per place and key: how many values of each
/// class, where the first of each was) and not kept, so memory grows with the number of
/// distinct places and keys in the samples, not with their size: a 1 GB array streams
/// through in bounded memory. Identity candidates are checked for repeats on the first
/// 65,536 distinct values of each array (the root collection counts as one array over every input).
///
/// The same samples always give the same model, byte for byte.
public final class ModelInference {
    /// The name of the entity of the collection's objects (`--entity`).
    public let rootEntity: String
    /// Entities of a model being extended, which keys `<name>Id` may refer to.
    public var knownEntities: [KnownEntity] = []
    /// Objects added so far.
    public private(set) var objectCount = 0
    /// Whether a collection added with ``add(collection:at:source:)`` was an object keyed by
    /// its members' identities (`{"138586341": {"id": 138586341, …}}`), read member by member.
    public private(set) var sawKeyedCollection = false

    private let root = ShapeNode(isArrayElement: true)
    private var sources: [String?] = []
    private var sourceIndex: [String: Int] = [:]

    /// An inference of a model whose root entity is `rootEntity`.
    public init(rootEntity: String) {
        self.rootEntity = rootEntity
    }

    // MARK: - Adding samples

    /// Adds one object of the collection.
    ///
    /// - Parameters:
    ///   - element: an object (anything else is an error).
    ///   - path: where it is in its input (`$.statuses[3]`), for messages.
    ///   - source: the input's name (a file name), for messages.
    /// - Throws: ``ModelInferenceError`` `.notAnObject` naming the path and what was found.
    public func add(_ element: JSONValue, at path: JSONPath, source: String? = nil) throws(ModelInferenceError) {
        guard case .object(let object) = element else {
            throw ModelInferenceError(
                .notAnObject, source: source, path: path, entity: rootEntity,
                message: "expected an object (each element becomes \(withIndefiniteArticle(rootEntity))), "
                    + "found \(ModelInference.phrase(for: element))")
        }
        let index = self.index(of: source)
        root.observe(object, path: path, source: index)
        root.checkRootUniqueness(of: object)
        objectCount += 1
    }

    /// Adds a whole collection: the elements of an array; the members of an object keyed
    /// by its members' identities (every member an object whose `id`, `objectId` or
    /// `uuid` has the member's key as its text); otherwise the object itself.
    ///
    /// - Returns: the number of objects added.
    /// - Throws: ``ModelInferenceError`` `.notAnObject` for a scalar, `null`, or an array
    ///   element that is not an object; `.noObjects` for an empty array or an empty object.
    @discardableResult
    public func add(collection value: JSONValue, at path: JSONPath, source: String? = nil) throws(ModelInferenceError) -> Int {
        switch value {
        case .array(let elements):
            guard !elements.isEmpty else { throw noObjects(at: path, source: source, found: "an empty array") }
            for (i, element) in elements.enumerated() { try add(element, at: path.appending(index: i), source: source) }
            return elements.count
        case .object(let object):
            guard !object.isEmpty else { throw noObjects(at: path, source: source, found: "an empty object") }
            if ModelInference.isKeyedCollection(object) {
                sawKeyedCollection = true
                for (key, member) in object { try add(member, at: path.appending(key: key), source: source) }
                return object.count
            }
            try add(value, at: path, source: source)
            return 1
        default:
            throw ModelInferenceError(
                .notAnObject, source: source, path: path, entity: rootEntity,
                message: "expected an array or object of \(rootEntity) objects, found \(ModelInference.phrase(for: value))")
        }
    }

    /// The error for a collection without objects: `… $.statuses: no objects to infer Status from: found an empty array`.
    public func noObjects(at path: JSONPath?, source: String?, found: String) -> ModelInferenceError {
        ModelInferenceError(
            .noObjects, source: source, path: path, entity: rootEntity,
            message: "no objects to infer \(rootEntity) from: found \(found)")
    }

    /// Whether `object` is a collection keyed by identity: non-empty, every member an
    /// object whose `id`, `objectId` or `uuid` (the same key for all) has the member's key as its text.
    static func isKeyedCollection(_ object: JSONObject) -> Bool {
        guard !object.isEmpty else { return false }
        return ["id", "objectId", "uuid"].contains { candidate in
            object.allSatisfy { key, value in
                switch value[candidate] {
                case .number(let n)?: return n.text == key
                case .string(let s)?: return s == key
                default: return false
                }
            }
        }
    }

    // MARK: - The model

    /// The model the samples need, with the bindings it uses.
    ///
    /// - Throws: ``ModelInferenceError`` `.noObjects` when nothing was added,
    ///   `.invalidEntityName` when ``rootEntity`` cannot name an entity, `.notRecords` when
    ///   the collection's objects are tables keyed by data (more than 1,000 distinct keys, or
    ///   keys that are all numbers: `{"205705993": "Arrière-scène central", …}`), naming where:
    ///   nested, such an object is a `json` attribute, but the collection's entity has nowhere
    ///   to keep its values (`trellis import --key-attribute` reads it member by member).
    public func inferredModel() throws(ModelInferenceError) -> InferredModel {
        guard objectCount > 0 else { throw noObjects(at: nil, source: nil, found: "nothing") }
        if root.isTable, let place = root.dictionaryPlace ?? root.firstPlace {
            let found =
                root.isDictionary
                ? "objects with more than 1,000 distinct keys"  // ShapeNode.maximumKeys
                : "an object whose keys are all numbers"
            throw ModelInferenceError(
                .notRecords, source: sources.indices.contains(place.source) ? sources[place.source] : nil,
                path: place.path, entity: rootEntity,
                message: "no \(rootEntity) records to infer from: found \(found), a table keyed by data; "
                    + "read its members as records with trellis import --key-attribute "
                    + "(and --value-key for values that are not objects)")
        }
        guard !rootEntity.isEmpty, !rootEntity.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ModelInferenceError(.invalidEntityName, entity: rootEntity, message: "'\(rootEntity)' cannot name an entity")
        }
        let grouping = EntityGrouping(root: root, rootWords: InferenceNaming.words(of: rootEntity))
        var builder = InferredModelBuilder(grouping: grouping, rootName: rootEntity, knownEntities: knownEntities)
        let entities = builder.build()
        var declarations = BindingDeclarations()
        if builder.usesTwitterDate {
            declarations.transformers[AttributeTyping.twitterDateName] = .dateFormat(ValueClassifier.twitterDateFormat)
        }
        let file: ModelFile
        do {
            file = try ModelFile(model: try ObjectModel(entities: entities), bindingDeclarations: declarations)
        } catch {
            throw ModelInferenceError(.invalidEntityName, entity: rootEntity, message: "the inferred model is not valid: \(error)")
        }
        var evidence: [String: [String: KeyEvidence]] = [:]
        for draft in builder.drafts where draft.group >= 0 { evidence[draft.name] = draft.evidence }
        return InferredModel(
            file: file, rootEntity: rootEntity, evidence: evidence, sources: sources,
            isKeyedCollection: sawKeyedCollection)
    }

    // MARK: - Internals

    private func index(of source: String?) -> Int {
        let key = source ?? ""
        if let i = sourceIndex[key] { return i }
        sourceIndex[key] = sources.count
        sources.append(source)
        return sources.count - 1
    }

    /// `a number`, `an array`, `null`.
    static func phrase(for value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A model inferred from samples (``ModelInference/inferredModel()``): the model file
/// (model and bindings), and what each property was inferred from, for the checks that
/// extend a recorded model with it (``ModelExtension``).
public struct InferredModel: Sendable {
    /// The model and its bindings, ready to write (``ModelFile/write(to:)``) or use.
    public var file: ModelFile
    /// The entity of the collection's objects.
    public var rootEntity: String
    /// Whether the collection was an object keyed by identity (import it member by member).
    public var isKeyedCollection: Bool
    /// Entity → property → its values' classes and where they were; absent for an entity
    /// of ``ModelInference/knownEntities`` that the samples only refer to.
    var evidence: [String: [String: KeyEvidence]]
    /// Input names by index (``SamplePlace/source``).
    var sources: [String?]

    init(file: ModelFile, rootEntity: String, evidence: [String: [String: KeyEvidence]], sources: [String?], isKeyedCollection: Bool) {
        self.file = file
        self.rootEntity = rootEntity
        self.evidence = evidence
        self.sources = sources
        self.isKeyedCollection = isKeyedCollection
    }

    /// The name of the input a place is in.
    func source(of place: SamplePlace) -> String? {
        sources.indices.contains(place.source) ? sources[place.source] : nil
    }
}
