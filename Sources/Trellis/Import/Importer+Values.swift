/// Converting JSON values, and the bindings (transformers, mappers) an import uses.
extension Importer {
    // MARK: - Values

    func convert(_ value: JSONValue, _ a: AttributePlan, _ entity: ResolvedEntity, keyPath: JSONKeyPath?) throws -> AttributeValue? {
        guard let name = a.transformerName else {
            do {
                return try coerce(value, to: a.type)
            } catch let failure as CoercionFailure {
                throw fail(
                    .invalidValue, keyPath, entity.name, a.name, value,
                    "cannot store \(jsonSnippet(value)) in \(entity.name).\(a.name) (\(a.type)): \(failure.message)")
            }
        }
        let transformer = try valueTransformer(name, entity: entity.name, attribute: a.name, keyPath: keyPath)
        let result: AttributeValue?
        do {
            result = try transformer.transformedValue(value)
        } catch let error as TransformError {
            throw fail(
                .invalidValue, keyPath, entity.name, a.name, value,
                "cannot store \(jsonSnippet(value)) in \(entity.name).\(a.name) (\(a.type)): value transformer '\(name)': \(error.message)",
                cause: error)
        }
        if let result, !ModelResolver.value(result, fits: a.type) {
            throw fail(
                .invalidValue, keyPath, entity.name, a.name, value,
                "value transformer '\(name)' turned \(jsonSnippet(value)) into \(result), which is not \(withIndefiniteArticle(a.type.description)) for \(entity.name).\(a.name)"
            )
        }
        return result
    }

    func valueTransformer(_ name: String, entity: String, attribute: String, keyPath: JSONKeyPath?) throws -> JSONValueTransformer {
        if let t = transformers[name] { return t }
        do {
            let t = try context.bindings.transformers.transformer(named: name)
            transformers[name] = t
            return t
        } catch {
            let names = context.bindings.transformers.names
            throw fail(
                .unknownName, keyPath, entity, attribute, nil,
                "\(entity).\(attribute) names value transformer '\(name)', which is not registered; registered: "
                    + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
    }

    func dictionaryTransformer(_ plan: EntityPlan) throws -> DictionaryTransformer? {
        guard let name = plan.info.entity.dictionaryTransformerName else { return nil }
        if let t = context.bindings.dictionaryTransformers[name] { return t }
        let names = context.bindings.dictionaryTransformers.keys.sorted()
        throw fail(
            .unknownName, nil, plan.info.name, nil, nil,
            "\(plan.info.name) names dictionary transformer '\(name)', which is not registered; registered: "
                + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    }

    func entityMapper(_ plan: EntityPlan) throws -> EntityMapper? {
        guard let name = plan.info.entity.entityMapperName else { return nil }
        if let m = context.bindings.entityMappers[name] { return m }
        let names = context.bindings.entityMappers.keys.sorted()
        throw fail(
            .unknownName, nil, plan.info.name, nil, nil,
            "\(plan.info.name) names entity mapper '\(name)', which is not registered; registered: "
                + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    }
}
