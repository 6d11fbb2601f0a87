/// Phase 1 of a batch, *collect*: the identities met, per identity namespace.
extension Importer {
    // MARK: - Phase 1: prepare

    func prepare(_ value: JSONValue, _ requested: EntityInfo, key: String?) throws {
        switch value {
        case .object(var object):
            let plan = try self.plan(requested)
            if let transformer = try dictionaryTransformer(plan) {
                do {
                    object = try transformer.transform(object)
                } catch {
                    throw fail(
                        .transformFailed, nil, requested.name, nil, value,
                        "dictionary transformer '\(transformer.name)' of \(requested.name) failed: \(error)", cause: error)
                }
            }
            if let key, let name = options.keyAttribute, requested === root,
                let mapping = plan.attributes.first(where: { requested.entity.attributes[$0.index].name == name })
            {
                do {
                    try mapping.keyPath.set(.string(key), in: &object)
                } catch {
                    throw fail(.invalidOption, nil, requested.name, name, .string(key), "cannot store the key: \(error)", cause: error)
                }
            }
            if let identity = try topLevelReference(object, requested, plan, key: key) {
                // Only the identity attributes, at the top level: read as a bare identifier.
                requests[requested.namespace].insert(identity)
                prepared.append(
                    Prepared(object: nil, identity: identity, walk: requested, requested: requested.number, end: prepared.count + 1, isReference: true))
                return
            }
            var walk = requested
            if let mapper = try entityMapper(plan) {
                let chosen: String?
                do {
                    chosen = try mapper.map(object)
                } catch {
                    throw fail(.transformFailed, nil, requested.name, nil, value, "entity mapper '\(mapper.name)' failed: \(error)", cause: error)
                }
                if let chosen {
                    guard let info = schema.info(named: chosen), requested.includes(info.number) else {
                        throw fail(
                            .invalidEntity, nil, requested.name, nil, value,
                            "entity mapper '\(mapper.name)' chose '\(chosen)', which is not \(requested.name) or one of its sub-entities")
                    }
                    walk = info
                } else if requested.entity.isAbstract {
                    throw fail(
                        .abstractEntity, nil, requested.name, nil, value,
                        "\(requested.name) is abstract, and its entity mapper '\(mapper.name)' chose no sub-entity for this object")
                }
            }
            let walkPlan = walk === requested ? plan : try self.plan(walk)
            var identity: IdentityKey?
            var leaf = Prepared.notALeaf
            // The identity is that of the walked entity (the mapper's choice): the parent's
            // when the sub-entity inherits it, the sub-entity's own when it declares one
            // (``Importer+Uniquing.swift``).
            if walk.namespace >= 0, !walkPlan.identity.isEmpty {
                identity = try extractIdentity(walkPlan, object, walk)
                if let identity {
                    if !steps.isEmpty, walkPlan.relationships.isEmpty {
                        leaf = leaves.occurrence(
                            of: object, NamespacedIdentity(namespace: walk.namespace, key: identity),
                            requested: requested, walk: walk, at: prepared.count)
                        if leaf >= 0 {
                            prepared.append(
                                Prepared(
                                    object: object, identity: identity, walk: walk, requested: requested.number, leaf: leaf,
                                    end: prepared.count + 1))
                            return
                        }
                    }
                    requests[walk.namespace].insert(identity)
                }
            }
            let position = prepared.count
            prepared.append(Prepared(object: object, identity: identity, walk: walk, requested: requested.number, leaf: leaf))
            try walkRelationships(of: object, walkPlan) { r, lookup in
                guard case .present(let v) = lookup else { return }
                if !r.isToMany {
                    switch v {
                    case .object: try prepare(v, r.destination, key: nil)
                    case .string, .number: try prepareBare(v, r.destination)
                    case .array:
                        throw fail(
                            .arrayForToOne, nil, walk.name, r.name, v,
                            "\(walk.name).\(r.name) is a to-one relationship; found an array \(jsonSnippet(v))")
                    default:
                        throw fail(
                            .notAnObject, nil, walk.name, r.name, v,
                            "\(walk.name).\(r.name) takes an object or an identifier; found \(jsonSnippet(v))")
                    }
                    return
                }
                guard case .array(let items) = v else {
                    throw fail(
                        .notAnArray, nil, walk.name, r.name, v,
                        "\(walk.name).\(r.name) is a to-many relationship; expected an array or null, found \(jsonSnippet(v))")
                }
                try walkElements(of: items) { item in
                    switch item {
                    case .object: try prepare(item, r.destination, key: nil)
                    case .string, .number: try prepareBare(item, r.destination)
                    default:
                        throw fail(
                            .notAnObject, nil, walk.name, r.name, item,
                            "\(walk.name).\(r.name) takes objects or identifiers; found \(jsonSnippet(item))")
                    }
                }
            }
            prepared[position].end = prepared.count
        case .string, .number:
            try prepareBare(value, requested)
        default:
            throw fail(
                .notAnObject, nil, requested.name, nil, value,
                "expected \(withIndefiniteArticle(requested.name)) object or identifier, found \(jsonSnippet(value))")
        }
    }

    func prepareBare(_ value: JSONValue, _ requested: EntityInfo) throws {
        let plan = try self.plan(requested)
        guard plan.identity.count == 1, requested.entity.identityAttributeIndexes.count == 1 else {
            let count = requested.entity.identityAttributeIndexes.count
            throw fail(
                .noSingleIdentity, nil, requested.name, nil, value,
                "\(jsonSnippet(value)) is a bare identifier, but \(requested.name) has "
                    + (count == 1 ? "an unmapped identity attribute" : "\(count) identity attributes") + "; use an object")
        }
        let a = plan.identity[0]
        guard let converted = try convert(value, a, requested.entity, keyPath: nil) else {
            throw fail(.invalidValue, nil, requested.name, a.name, value, "an identifier cannot be null")
        }
        let identity = IdentityKey.single(converted)
        requests[requested.namespace].insert(identity)
        prepared.append(Prepared(object: nil, identity: identity, walk: requested, requested: requested.number, end: prepared.count + 1))
    }

    func extractIdentity(_ plan: EntityPlan, _ object: JSONObject, _ entity: EntityInfo) throws -> IdentityKey? {
        if plan.identity.count == 1 {
            let a = plan.identity[0]
            guard case .present(let v) = a.lookup(in: object),
                let value = try convert(v, a, entity.entity, keyPath: a.keyPath)
            else { return nil }
            return .single(value)
        }
        var values: [AttributeValue] = []
        values.reserveCapacity(plan.identity.count)
        for a in plan.identity {
            guard case .present(let v) = a.lookup(in: object),
                let value = try convert(v, a, entity.entity, keyPath: a.keyPath)
            else { return nil }
            values.append(value)
        }
        return .composite(values)
    }
}
