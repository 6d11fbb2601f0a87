import Trellis

/// Turns the JSON of a model file into entity descriptions and binding declarations,
/// checking every key and value (see docs/ModelFormat.md).
struct ModelFileDecoder {
    static let topKeys = ["format", "formatVersion", "version", "keyConvention", "entities", "bindings"]
    static let entityKeys = [
        "name", "parent", "abstract", "identityAttributes", "entityMapper", "dictionaryTransformer",
        "userInfo", "attributes", "relationships",
    ]
    static let attributeKeys = ["name", "type", "optional", "default", "jsonKeyPath", "transformer", "userInfo"]
    static let relationshipKeys = [
        "name", "destination", "inverse", "toMany", "ordered", "deleteRule", "minCount",
        "maxCount", "optional", "jsonKeyPath", "mergePolicy", "userInfo",
    ]
    static let bindingKeys = ["transformers", "entityMappers", "dictionaryTransformers"]

    /// The format name in `format`.
    static let formatName = "trellis-model"
    /// The newest `formatVersion` this reader knows.
    static let formatVersion = 1

    // MARK: - Top level

    /// The model file in `json`.
    ///
    /// - Parameter checkingNames: `false` skips the checks of the names the model uses
    ///   against `bindings` (for a loader that adds a bindings file's declarations first);
    ///   the declarations themselves are still checked.
    static func decode(_ json: JSONValue, checkingNames: Bool = true) throws -> ModelFile {
        if let payload = payloadDescription(json) {
            throw ModelFileError(.notAModel, message: "looks like a JSON payload, not a model file (\(payload))")
        }
        let top = try FieldReader(json, at: .root, what: "a model file", allowed: topKeys)
        guard let format = try top.string("format") else {
            throw ModelFileError(
                .missingKey, path: .root,
                message: "a model file needs \"format\": \"\(formatName)\"")
        }
        guard format == formatName else {
            throw ModelFileError(
                .unsupportedFormat, path: .root.appending(key: "format"),
                message: "unsupported format '\(format)'; expected '\(formatName)'")
        }
        guard let versionValue = top.value("formatVersion") else {
            throw ModelFileError(.missingKey, path: .root, message: "a model file needs \"formatVersion\": \(formatVersion)")
        }
        guard let version = versionValue.intValue else {
            throw top.wrongType("formatVersion", expected: "an integer", found: versionValue)
        }
        guard version == formatVersion else {
            throw ModelFileError(
                .unsupportedFormat, path: .root.appending(key: "formatVersion"),
                message: "unsupported formatVersion \(version); this reader knows version \(formatVersion)")
        }
        let versionLabel = try top.string("version")
        var keyConvention = KeyConvention.none
        if let text = try top.string("keyConvention") {
            guard let convention = KeyConvention(rawValue: text) else {
                throw ModelFileError(
                    .invalidValue, path: .root.appending(key: "keyConvention"),
                    message: "unknown key convention '\(text)'; expected one of: none, snakeCase, propertyName")
            }
            keyConvention = convention
        }
        guard let entityValues = try top.array("entities") else {
            throw ModelFileError(.missingKey, path: .root, message: "a model file needs \"entities\" (an array)")
        }
        let entitiesPath = JSONPath.root.appending(key: "entities")
        let entities = try entityValues.enumerated().map { i, value in
            try decodeEntity(value, at: entitiesPath.appending(index: i))
        }
        var bindings = BindingDeclarations()
        if let value = top.value("bindings") {
            bindings = try decodeBindings(value, at: .root.appending(key: "bindings"))
        }

        let model: ObjectModel
        do {
            model = try ObjectModel(entities: entities, keyConvention: keyConvention, versionLabel: versionLabel)
        } catch let error as ModelValidationError {
            let paths = problemPaths(error.problems, entities: entities)
            let count = error.problems.count
            throw ModelFileError(
                .invalidModel,
                message: count == 1 ? "invalid model (1 problem):" : "invalid model (\(count) problems):",
                problems: error.problems, problemPaths: paths)
        }
        if checkingNames {
            try checkUses(entities: entities, bindings: bindings)
            try checkEntityMappers(bindings.entityMappers, in: model, at: .root.appending(key: "bindings"))
        }
        let runtime = try bindings.makeBindings()
        return ModelFile(model: model, bindingDeclarations: bindings, bindings: runtime)
    }

    // MARK: - Entities

    static func decodeEntity(_ value: JSONValue, at path: JSONPath) throws -> EntityDescription {
        let fields = try FieldReader(value, at: path, what: "an entity", allowed: entityKeys)
        let name = try fields.requiredString("name", what: "an entity")
        var userInfo = try fields.stringTable("userInfo") ?? [:]

        if let identity = fields.value("identityAttributes") {
            let names: [String]
            switch identity {
            case .string(let text):
                names = splitNames(text)
            case .array(let elements):
                names = try elements.enumerated().map { i, element in
                    let elementPath = path.appending(key: "identityAttributes").appending(index: i)
                    guard case .string(let s) = element else {
                        throw ModelFileError(
                            .wrongType, path: elementPath,
                            message: "expected an attribute name (a string), found \(FieldReader.kindPhrase(element))")
                    }
                    // The names are stored as Groot's annotation, one string separated by commas
                    // and whitespace: a name holding one would silently become other names.
                    if s.isEmpty {
                        throw ModelFileError(.invalidValue, path: elementPath, message: "an identity attribute name cannot be empty")
                    }
                    if splitNames(s) != [s] {
                        throw ModelFileError(
                            .invalidValue, path: elementPath,
                            message: "identity attribute name \"\(s)\" cannot hold a comma or whitespace: "
                                + "the identityAttributes annotation separates names with them")
                    }
                    return s
                }
            default:
                throw fields.wrongType("identityAttributes", expected: "an array of attribute names or a string", found: identity)
            }
            if let existing = userInfo[GrootAnnotation.identityAttributes], splitNames(existing) != names {
                throw conflict(
                    path: path, key: "identityAttributes", userInfoKey: GrootAnnotation.identityAttributes,
                    convenience: names.joined(separator: ","), userInfo: existing)
            }
            userInfo[GrootAnnotation.identityAttributes] = names.joined(separator: ",")
        }
        try merge(fields, "entityMapper", into: &userInfo, as: GrootAnnotation.entityMapperName, path: path)
        try merge(fields, "dictionaryTransformer", into: &userInfo, as: GrootAnnotation.jsonDictionaryTransformerName, path: path)

        let attributes = try (fields.array("attributes") ?? []).enumerated().map { i, value in
            try decodeAttribute(value, at: path.appending(key: "attributes").appending(index: i))
        }
        let relationships = try (fields.array("relationships") ?? []).enumerated().map { i, value in
            try decodeRelationship(value, at: path.appending(key: "relationships").appending(index: i))
        }
        return EntityDescription(
            name: name, parentName: try fields.string("parent"),
            isAbstract: try fields.bool("abstract") ?? false,
            attributes: attributes, relationships: relationships, userInfo: userInfo)
    }

    static func decodeAttribute(_ value: JSONValue, at path: JSONPath) throws -> AttributeDescription {
        let fields = try FieldReader(value, at: path, what: "an attribute", allowed: attributeKeys)
        let name = try fields.requiredString("name", what: "an attribute")
        let typeText = try fields.requiredString("type", what: "an attribute")
        guard let type = AttributeType(rawValue: typeText) else {
            throw ModelFileError(
                .invalidValue, path: path.appending(key: "type"),
                message: "unknown attribute type '\(typeText)'; expected one of: "
                    + AttributeType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var userInfo = try fields.stringTable("userInfo") ?? [:]
        try merge(fields, "jsonKeyPath", into: &userInfo, as: GrootAnnotation.jsonKeyPath, path: path)
        try merge(fields, "transformer", into: &userInfo, as: GrootAnnotation.jsonTransformerName, path: path)
        try checkKeyPath(userInfo, fields: fields, path: path)
        var defaultValue: AttributeValue?
        if let json = fields.value("default") {
            defaultValue = try AttributeDefaultCoding.value(from: json, type: type, at: path.appending(key: "default"))
        }
        return AttributeDescription(
            name: name, type: type, isOptional: try fields.bool("optional") ?? true,
            defaultValue: defaultValue, userInfo: userInfo)
    }

    static func decodeRelationship(_ value: JSONValue, at path: JSONPath) throws -> RelationshipDescription {
        let fields = try FieldReader(value, at: path, what: "a relationship", allowed: relationshipKeys)
        let name = try fields.requiredString("name", what: "a relationship")
        let destination = try fields.requiredString("destination", what: "a relationship")
        var deleteRule = RelationshipDescription.DeleteRule.nullify
        if let text = try fields.string("deleteRule") {
            guard let rule = RelationshipDescription.DeleteRule(rawValue: text) else {
                throw ModelFileError(
                    .invalidValue, path: path.appending(key: "deleteRule"),
                    message: "unknown delete rule '\(text)'; expected one of: "
                        + RelationshipDescription.DeleteRule.allCases.map(\.rawValue).joined(separator: ", "))
            }
            deleteRule = rule
        }
        var userInfo = try fields.stringTable("userInfo") ?? [:]
        try merge(fields, "jsonKeyPath", into: &userInfo, as: GrootAnnotation.jsonKeyPath, path: path)
        try merge(fields, "mergePolicy", into: &userInfo, as: GrootAnnotation.jsonMergePolicy, path: path)
        if let policy = userInfo[GrootAnnotation.jsonMergePolicy], ToManyMergePolicy(rawValue: policy) == nil {
            let key =
                fields.value("mergePolicy") != nil
                ? path.appending(key: "mergePolicy")
                : path.appending(key: "userInfo").appending(key: GrootAnnotation.jsonMergePolicy)
            throw ModelFileError(.invalidValue, path: key, message: "unknown merge policy '\(policy)'; expected one of: replace, append")
        }
        try checkKeyPath(userInfo, fields: fields, path: path)
        return RelationshipDescription(
            name: name, destinationEntity: destination, inverseName: try fields.string("inverse"),
            isToMany: try fields.bool("toMany") ?? false, isOrdered: try fields.bool("ordered") ?? false,
            deleteRule: deleteRule, isOptional: try fields.bool("optional") ?? true,
            minCount: try fields.int("minCount") ?? 0, maxCount: try fields.int("maxCount") ?? 0,
            userInfo: userInfo)
    }

    // MARK: - Bindings

    static func decodeBindings(_ value: JSONValue, at path: JSONPath) throws -> BindingDeclarations {
        let fields = try FieldReader(value, at: path, what: "the bindings", allowed: bindingKeys)
        var result = BindingDeclarations()
        for (name, declaration) in try fields.objectMember("transformers") ?? [:] {
            let at = path.appending(key: "transformers").appending(key: name)
            switch declaration {
            case .string(let builtIn):
                result.transformers[name] = .builtIn(builtIn)
            case .object:
                let t = try FieldReader(declaration, at: at, what: "a transformer declaration", allowed: ["dateFormat"])
                result.transformers[name] = .dateFormat(try t.requiredString("dateFormat", what: "a transformer declaration"))
            default:
                throw ModelFileError(
                    .wrongType, path: at,
                    message: "expected a built-in transformer name or {\"dateFormat\": …}, found "
                        + FieldReader.kindPhrase(declaration))
            }
        }
        for (name, declaration) in try fields.objectMember("entityMappers") ?? [:] {
            let at = path.appending(key: "entityMappers").appending(key: name)
            let m = try FieldReader(declaration, at: at, what: "an entity mapper", allowed: ["keyPath", "entities", "default"])
            guard let table = try m.stringTable("entities") else {
                throw ModelFileError(.missingKey, path: at, message: "an entity mapper needs \"entities\" (value → entity name)")
            }
            result.entityMappers[name] = EntityMapperDeclaration(
                keyPath: try m.requiredString("keyPath", what: "an entity mapper"),
                entities: table, defaultEntity: try m.string("default"))
        }
        for (name, declaration) in try fields.objectMember("dictionaryTransformers") ?? [:] {
            let at = path.appending(key: "dictionaryTransformers").appending(key: name)
            let d = try FieldReader(declaration, at: at, what: "a dictionary transformer", allowed: ["copy", "rename", "set", "remove"])
            var removed: [String] = []
            for (i, element) in (try d.array("remove") ?? []).enumerated() {
                guard case .string(let s) = element else {
                    throw ModelFileError(
                        .wrongType, path: at.appending(key: "remove").appending(index: i),
                        message: "expected a key path (a string), found \(FieldReader.kindPhrase(element))")
                }
                removed.append(s)
            }
            var constants: [String: JSONValue] = [:]
            for (k, v) in try d.objectMember("set") ?? [:] { constants[k] = v }
            result.dictionaryTransformers[name] = DictionaryTransformerDeclaration(
                copy: try d.stringTable("copy") ?? [:], rename: try d.stringTable("rename") ?? [:], set: constants, remove: removed)
        }
        return result
    }

    // MARK: - Checks

    /// Every transformer, entity mapper and dictionary transformer name used is bound (or
    /// a built-in transformer).
    /// - Throws: ``ModelFileError`` `.unboundName` at the first use of an unbound name
    ///   (`$.entities[0].attributes[3].transformer`), listing the names used and bound.
    static func checkUses(entities: [EntityDescription], bindings: BindingDeclarations) throws {
        let builtIns = BindingDeclarations.builtInTransformerNames
        var usedTransformers: [(name: String, path: JSONPath)] = []
        var usedMappers: [(name: String, path: JSONPath)] = []
        var usedDictionaryTransformers: [(name: String, path: JSONPath)] = []
        for (i, entity) in entities.enumerated() {
            let entityPath = JSONPath.root.appending(key: "entities").appending(index: i)
            if let name = entity.entityMapperName { usedMappers.append((name, entityPath.appending(key: "entityMapper"))) }
            if let name = entity.dictionaryTransformerName {
                usedDictionaryTransformers.append((name, entityPath.appending(key: "dictionaryTransformer")))
            }
            for (j, attribute) in entity.attributes.enumerated() {
                if let name = attribute.transformerName {
                    usedTransformers.append((name, entityPath.appending(key: "attributes").appending(index: j).appending(key: "transformer")))
                }
            }
        }
        func uses(_ list: [(name: String, path: JSONPath)]) -> String {
            BindingDeclarations.listing(Array(Set(list.map(\.name))).sorted())
        }
        for use in usedTransformers where bindings.transformers[use.name] == nil && !builtIns.contains(use.name) {
            throw ModelFileError(
                .unboundName, path: use.path,
                message: "value transformer '\(use.name)' is not bound; the model uses transformers: \(uses(usedTransformers)); "
                    + "bound in \"bindings.transformers\": \(BindingDeclarations.listing(bindings.transformers.keys.sorted())); "
                    + "built-in: \(BindingDeclarations.listing(builtIns))")
        }
        for use in usedMappers where bindings.entityMappers[use.name] == nil {
            throw ModelFileError(
                .unboundName, path: use.path,
                message: "entity mapper '\(use.name)' is not bound; the model uses entity mappers: \(uses(usedMappers)); "
                    + "bound in \"bindings.entityMappers\": \(BindingDeclarations.listing(bindings.entityMappers.keys.sorted()))")
        }
        for use in usedDictionaryTransformers where bindings.dictionaryTransformers[use.name] == nil {
            throw ModelFileError(
                .unboundName, path: use.path,
                message: "dictionary transformer '\(use.name)' is not bound; the model uses dictionary transformers: "
                    + "\(uses(usedDictionaryTransformers)); bound in \"bindings.dictionaryTransformers\": "
                    + BindingDeclarations.listing(bindings.dictionaryTransformers.keys.sorted()))
        }
    }

    /// Every entity an entity mapper picks (its `entities` values and `default`) is an entity
    /// of `model`, and for each entity using the mapper (`entityMapperName`), that entity or
    /// one of its sub-entities (the importer accepts nothing else).
    ///
    /// - Parameter section: where the declarations are: `$.bindings` in a model file, `$`
    ///   in a bindings file.
    /// - Throws: ``ModelFileError`` `.invalidValue` at the entry
    ///   (`$.entityMappers.VehicleMapper.entities.car`): `unknown entity 'Boat'; the model
    ///   has: …`, or `'Garage' is not Vehicle or one of its sub-entities (…); allowed: Bike, Car, Vehicle`.
    static func checkEntityMappers(
        _ mappers: [String: EntityMapperDeclaration], in model: ObjectModel,
        at section: JSONPath
    ) throws {
        let entityNames = model.entities.map(\.name).sorted()
        for name in mappers.keys.sorted() {
            guard let mapper = mappers[name] else { continue }
            let at = section.appending(key: "entityMappers").appending(key: name)
            var targets = mapper.entities.keys.sorted().map { (path: at.appending(key: "entities").appending(key: $0), entity: mapper.entities[$0] ?? "") }
            if let target = mapper.defaultEntity { targets.append((at.appending(key: "default"), target)) }
            let users = model.entities.filter { $0.entityMapperName == name }.map(\.name)
            for target in targets {
                guard model.entity(named: target.entity) != nil else {
                    throw ModelFileError(
                        .invalidValue, path: target.path,
                        message: "unknown entity '\(target.entity)'; the model has: \(entityNames.joined(separator: ", "))")
                }
                for user in users where !model.entity(target.entity, isKindOf: user) {
                    let allowed = model.entities.map(\.name).filter { model.entity($0, isKindOf: user) }.sorted()
                    throw ModelFileError(
                        .invalidValue, path: target.path,
                        message: "'\(target.entity)' is not \(user) or one of its sub-entities (entity \(user) "
                            + "uses entity mapper '\(name)'); allowed: \(allowed.joined(separator: ", "))")
                }
            }
        }
    }

    /// A key path annotation that cannot be parsed is reported at the key that gave it.
    private static func checkKeyPath(_ userInfo: [String: String], fields: FieldReader, path: JSONPath) throws {
        guard let text = userInfo[GrootAnnotation.jsonKeyPath] else { return }
        do {
            _ = try JSONKeyPath(parsing: text)
        } catch {
            let at =
                fields.value("jsonKeyPath") != nil
                ? path.appending(key: "jsonKeyPath")
                : path.appending(key: "userInfo").appending(key: GrootAnnotation.jsonKeyPath)
            throw ModelFileError(.invalidValue, path: at, message: "\(error)")
        }
    }

    /// Copies the convenience key `key` into `userInfo[userInfoKey]`; both given must agree.
    private static func merge(
        _ fields: FieldReader, _ key: String, into userInfo: inout [String: String],
        as userInfoKey: String, path: JSONPath
    ) throws {
        guard let value = try fields.string(key) else { return }
        if let existing = userInfo[userInfoKey], existing != value {
            throw conflict(path: path, key: key, userInfoKey: userInfoKey, convenience: value, userInfo: existing)
        }
        userInfo[userInfoKey] = value
    }

    private static func conflict(
        path: JSONPath, key: String, userInfoKey: String, convenience: String,
        userInfo: String
    ) -> ModelFileError {
        ModelFileError(
            .conflictingAnnotation, path: path.appending(key: key),
            message: "\"\(key)\": \"\(convenience)\" disagrees with \"userInfo\".\"\(userInfoKey)\": \"\(userInfo)\"; "
                + "give it once, or the same value both ways")
    }

    /// Identity attribute names from annotation text (commas and whitespace separate).
    static func splitNames(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
    }

    /// The path of the entity or property each validation problem concerns. The n-th
    /// `duplicateEntity` problem of a name points at the declaration that repeats it
    /// (`$.entities[1]` when `$.entities[0]` declared it first), not at the first one.
    static func problemPaths(_ problems: [ModelError], entities: [EntityDescription]) -> [JSONPath] {
        var repeats: [String: Int] = [:]
        return problems.map { problem in
            guard problem.code == .duplicateEntity else { return problemPath(problem, entities: entities) }
            let name = problem.entity
            let declarations = entities.indices.filter { entities[$0].name == name }
            let n = repeats[name, default: 0] + 1
            repeats[name] = n
            guard n < declarations.count else { return problemPath(problem, entities: entities) }
            return JSONPath.root.appending(key: "entities").appending(index: declarations[n])
        }
    }

    /// The path of the entity or property a validation problem concerns (its entity's
    /// first declaration).
    static func problemPath(_ problem: ModelError, entities: [EntityDescription]) -> JSONPath {
        guard let i = entities.firstIndex(where: { $0.name == problem.entity }) else { return .root.appending(key: "entities") }
        let entityPath = JSONPath.root.appending(key: "entities").appending(index: i)
        let entity = entities[i]
        if problem.code == .unknownIdentityAttribute { return entityPath.appending(key: "identityAttributes") }
        if problem.code == .unknownParent || problem.code == .inheritanceCycle { return entityPath.appending(key: "parent") }
        let isName = problem.code == .invalidName
        guard let property = problem.property else { return isName ? entityPath.appending(key: "name") : entityPath }
        if let j = entity.relationships.lastIndex(where: { $0.name == property }) {
            let relationshipPath = entityPath.appending(key: "relationships").appending(index: j)
            switch problem.code {
            case .unknownDestination: return relationshipPath.appending(key: "destination")
            case .inverseMismatch: return relationshipPath.appending(key: "inverse")
            case .invalidName: return relationshipPath.appending(key: "name")
            default: return relationshipPath
            }
        }
        if let j = entity.attributes.lastIndex(where: { $0.name == property }) {
            let attributePath = entityPath.appending(key: "attributes").appending(index: j)
            return isName ? attributePath.appending(key: "name") : attributePath
        }
        return entityPath
    }
}
