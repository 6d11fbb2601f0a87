import Trellis

/// Writes a ``ModelFile`` as the JSON the decoder reads (see docs/ModelFormat.md).
enum ModelFileEncoder {
    static func encode(_ file: ModelFile) -> JSONValue {
        var top = JSONObject()
        top["format"] = .string(ModelFileDecoder.formatName)
        top["formatVersion"] = JSONValue(ModelFileDecoder.formatVersion)
        if let label = file.model.versionLabel { top["version"] = .string(label) }
        if file.model.keyConvention != .none { top["keyConvention"] = .string(file.model.keyConvention.rawValue) }
        top["entities"] = .array(file.model.entities.map(entity))
        if !file.bindingDeclarations.isEmpty { top["bindings"] = bindings(file.bindingDeclarations) }
        return .object(top)
    }

    // MARK: - Entities

    static func entity(_ entity: EntityDescription) -> JSONValue {
        var object = JSONObject()
        var userInfo = entity.userInfo
        object["name"] = .string(entity.name)
        if let parent = entity.parentName { object["parent"] = .string(parent) }
        if entity.isAbstract { object["abstract"] = true }
        // The convenience array only when it gives the same text back ("a,b"); other spellings
        // ("a, b", Groot's "a b") stay verbatim in userInfo, so Core Data models round-trip exactly.
        if let text = userInfo[GrootAnnotation.identityAttributes],
            ModelFileDecoder.splitNames(text).joined(separator: ",") == text
        {
            userInfo[GrootAnnotation.identityAttributes] = nil
            object["identityAttributes"] = .array(ModelFileDecoder.splitNames(text).map(JSONValue.string))
        }
        if let name = userInfo.removeValue(forKey: GrootAnnotation.entityMapperName) { object["entityMapper"] = .string(name) }
        if let name = userInfo.removeValue(forKey: GrootAnnotation.jsonDictionaryTransformerName) {
            object["dictionaryTransformer"] = .string(name)
        }
        if !userInfo.isEmpty { object["userInfo"] = table(userInfo) }
        if !entity.attributes.isEmpty { object["attributes"] = .array(entity.attributes.map(attribute)) }
        if !entity.relationships.isEmpty { object["relationships"] = .array(entity.relationships.map(relationship)) }
        return .object(object)
    }

    static func attribute(_ attribute: AttributeDescription) -> JSONValue {
        var object = JSONObject()
        var userInfo = attribute.userInfo
        object["name"] = .string(attribute.name)
        object["type"] = .string(attribute.type.rawValue)
        if !attribute.isOptional { object["optional"] = false }
        if let value = attribute.defaultValue { object["default"] = AttributeDefaultCoding.json(from: value) }
        if let keyPath = userInfo.removeValue(forKey: GrootAnnotation.jsonKeyPath) { object["jsonKeyPath"] = .string(keyPath) }
        if let name = userInfo.removeValue(forKey: GrootAnnotation.jsonTransformerName) { object["transformer"] = .string(name) }
        if !userInfo.isEmpty { object["userInfo"] = table(userInfo) }
        return .object(object)
    }

    static func relationship(_ relationship: RelationshipDescription) -> JSONValue {
        var object = JSONObject()
        var userInfo = relationship.userInfo
        object["name"] = .string(relationship.name)
        object["destination"] = .string(relationship.destinationEntity)
        if let inverse = relationship.inverseName { object["inverse"] = .string(inverse) }
        if relationship.isToMany { object["toMany"] = true }
        if relationship.isOrdered { object["ordered"] = true }
        if relationship.deleteRule != .nullify { object["deleteRule"] = .string(relationship.deleteRule.rawValue) }
        if relationship.minCount != 0 { object["minCount"] = JSONValue(relationship.minCount) }
        if relationship.maxCount != 0 { object["maxCount"] = JSONValue(relationship.maxCount) }
        if !relationship.isOptional { object["optional"] = false }
        if let keyPath = userInfo.removeValue(forKey: GrootAnnotation.jsonKeyPath) { object["jsonKeyPath"] = .string(keyPath) }
        if let policy = userInfo.removeValue(forKey: GrootAnnotation.jsonMergePolicy) { object["mergePolicy"] = .string(policy) }
        if !userInfo.isEmpty { object["userInfo"] = table(userInfo) }
        return .object(object)
    }

    // MARK: - Bindings

    static func bindings(_ declarations: BindingDeclarations) -> JSONValue {
        var object = JSONObject()
        if !declarations.transformers.isEmpty {
            var transformers = JSONObject()
            for name in declarations.transformers.keys.sorted() {
                switch declarations.transformers[name] {
                case .builtIn(let base)?: transformers[name] = .string(base)
                case .dateFormat(let format)?: transformers[name] = ["dateFormat": .string(format)]
                case nil: break
                }
            }
            object["transformers"] = .object(transformers)
        }
        if !declarations.entityMappers.isEmpty {
            var mappers = JSONObject()
            for name in declarations.entityMappers.keys.sorted() {
                guard let mapper = declarations.entityMappers[name] else { continue }
                var m = JSONObject()
                m["keyPath"] = .string(mapper.keyPath)
                m["entities"] = table(mapper.entities)
                if let fallback = mapper.defaultEntity { m["default"] = .string(fallback) }
                mappers[name] = .object(m)
            }
            object["entityMappers"] = .object(mappers)
        }
        if !declarations.dictionaryTransformers.isEmpty {
            var transformers = JSONObject()
            for name in declarations.dictionaryTransformers.keys.sorted() {
                guard let d = declarations.dictionaryTransformers[name] else { continue }
                var t = JSONObject()
                if !d.copy.isEmpty { t["copy"] = table(d.copy) }
                if !d.rename.isEmpty { t["rename"] = table(d.rename) }
                if !d.set.isEmpty {
                    var constants = JSONObject()
                    for key in d.set.keys.sorted() { constants[key] = d.set[key] }
                    t["set"] = .object(constants)
                }
                if !d.remove.isEmpty { t["remove"] = .array(d.remove.map(JSONValue.string)) }
                transformers[name] = .object(t)
            }
            object["dictionaryTransformers"] = .object(transformers)
        }
        return .object(object)
    }

    /// A string table with keys sorted (stable output).
    static func table(_ table: [String: String]) -> JSONValue {
        var object = JSONObject()
        for key in table.keys.sorted() { object[key] = table[key].map(JSONValue.string) }
        return .object(object)
    }
}
