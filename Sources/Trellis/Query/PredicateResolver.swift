import Foundation

/// Resolves ``ObjectPredicate``s and sort descriptors against an entity of a model
/// (``ObjectFetchRequest/resolved(in:)``): every name is looked up, every value coerced to
/// its attribute's type, every operator checked against the type. Errors name the column
/// of the comparison (key path problems) or of its value (value problems).
struct PredicateResolver {
    let model: ObjectModel

    // MARK: - Predicates

    /// How deeply `AND`, `OR` and `NOT` may nest in a predicate built from values (the
    /// parser's own limit is lower): deeper is `.invalidRequest`, never a stack overflow.
    static let maximumDepth = 1000

    /// The resolved predicate, with nested lists of the same kind flattened (`a AND (b AND
    /// c)` is `a AND b AND c`) and double negations dropped, so that the SQL written for it
    /// nests no deeper than the predicate's logic does.
    func resolve(_ predicate: ObjectPredicate, in entity: ResolvedEntity) throws(QueryError) -> ResolvedPredicate {
        try resolve(predicate, in: entity, depth: 0)
    }

    private func resolve(_ predicate: ObjectPredicate, in entity: ResolvedEntity, depth: Int) throws(QueryError) -> ResolvedPredicate {
        guard depth < PredicateResolver.maximumDepth else {
            throw QueryError(
                .invalidRequest,
                message: "the predicate nests AND, OR and NOT more than \(PredicateResolver.maximumDepth) "
                    + "levels deep; simplify it", entity: entity.name)
        }
        switch predicate {
        case .constant(let b): return .constant(b)
        case .and(let ps):
            var parts: [ResolvedPredicate] = []
            for p in ps {
                let resolved = try resolve(p, in: entity, depth: depth + 1)
                if case .and(let inner) = resolved { parts.append(contentsOf: inner) } else { parts.append(resolved) }
            }
            return parts.count == 1 ? parts[0] : .and(parts)
        case .or(let ps):
            var parts: [ResolvedPredicate] = []
            for p in ps {
                let resolved = try resolve(p, in: entity, depth: depth + 1)
                if case .or(let inner) = resolved { parts.append(contentsOf: inner) } else { parts.append(resolved) }
            }
            return parts.count == 1 ? parts[0] : .or(parts)
        case .not(let p):
            let resolved = try resolve(p, in: entity, depth: depth + 1)
            if case .not(let inner) = resolved { return inner }
            return .not(resolved)
        case .comparison(let c): return try resolve(c, in: entity)
        }
    }

    private func resolve(_ c: PredicateComparison, in entity: ResolvedEntity) throws(QueryError) -> ResolvedPredicate {
        let components = c.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: \.isEmpty) else {
            throw error(.invalidKeyPath, "'\(c.keyPath)' is not a key path (empty name between dots)", c, entity)
        }
        if components == ["SELF"] || components == ["self"] {
            if let quantifier = c.quantifier {
                throw error(.invalidKeyPath, "\(quantifier.rawValue) needs a key path through a to-many relationship, not SELF", c, entity)
            }
            return try resolveSelf(c, entity)
        }
        var hops: [ResolvedHop] = []
        var current = entity
        var walked: [String] = []
        for (position, name) in components.enumerated() {
            let isLast = position == components.count - 1
            if name == "@count" {
                throw error(
                    .invalidKeyPath, "@count follows a to-many relationship (powers.@count); '\(walked.joined(separator: "."))' is not one",
                    c, entity)
            }
            if let index = current.attributeIndex(of: name) {
                if !isLast, components[position + 1] == "@count" {
                    throw error(
                        .invalidKeyPath,
                        "@count follows a to-many relationship (powers.@count); "
                            + "'\((walked + [name]).joined(separator: "."))' is not one", c, entity)
                }
                guard isLast else {
                    throw error(
                        .invalidKeyPath,
                        "'\(name)' is an attribute of \(current.name), so the key path cannot go on after it "
                            + "('\(c.keyPath)')", c, entity)
                }
                if let quantifier = c.quantifier {
                    throw error(
                        .invalidKeyPath,
                        "\(quantifier.rawValue) needs a key path through a to-many relationship; "
                            + "'\(c.keyPath)' has none (drop \(quantifier.rawValue))", c, entity)
                }
                let path = ResolvedKeyPath(hops: hops, target: .attribute(entity: current, index: index), text: c.keyPath)
                return try resolveAttributeComparison(c, path: path, attribute: current.attributes[index], entity: entity)
            }
            guard let index = current.relationshipIndex(of: name) else {
                throw unknownName(name, in: current, c, root: entity)
            }
            let relationship = current.relationships[index]
            guard let destination = model.entity(named: relationship.destinationEntity) else {
                throw error(
                    .unknownProperty, "the destination entity \(relationship.destinationEntity) of \(current.name).\(name) is not in the model", c, entity)
            }
            let hop = ResolvedHop(source: current, index: index, destination: destination)
            walked.append(name)
            if relationship.isToMany {
                let toMany = ResolvedToManyPath(hops: hops, toMany: hop, text: walked.joined(separator: "."))
                let rest = Array(components[(position + 1)...])
                if rest == ["@count"] {
                    if let quantifier = c.quantifier {
                        throw error(.invalidKeyPath, "\(quantifier.rawValue) does not apply to @count; write '\(c.keyPath) …' alone", c, entity)
                    }
                    return try resolveCount(c, toMany, entity)
                }
                guard let quantifier = c.quantifier else {
                    let example = rest.isEmpty ? walked.joined(separator: ".") : c.keyPath
                    throw error(
                        .invalidKeyPath,
                        "'\(name)' is a to-many relationship of \(current.name); write ANY \(example) "
                            + "(or ALL, NONE)" + (rest.isEmpty ? ", or \(example).@count" : ""), c, entity)
                }
                var inner = c
                inner.quantifier = nil
                inner.keyPath = rest.isEmpty ? "SELF" : rest.joined(separator: ".")
                let innerPredicate: ResolvedPredicate
                do {
                    innerPredicate = try resolve(inner, in: destination)
                } catch let e where e.code == .invalidKeyPath && e.message.contains("is a to-many relationship") {
                    throw error(
                        .invalidKeyPath,
                        "'\(c.keyPath)' goes through two to-many relationships; a key path may go "
                            + "through one (with \(quantifier.rawValue))", c, entity)
                }
                switch quantifier {
                case .any: return .exists(toMany, innerPredicate)
                case .noneOf: return .not(.exists(toMany, innerPredicate))
                case .all: return .not(.exists(toMany, .not(innerPredicate)))
                }
            }
            if isLast {
                if let quantifier = c.quantifier {
                    throw error(
                        .invalidKeyPath,
                        "\(quantifier.rawValue) needs a to-many relationship; '\(name)' is a to-one "
                            + "relationship of \(current.name) (drop \(quantifier.rawValue))", c, entity)
                }
                let path = ResolvedKeyPath(hops: hops, target: .toOne(entity: current, index: index), text: c.keyPath)
                return try resolveToOneComparison(c, path: path, destination: destination, entity: entity)
            }
            hops.append(hop)
            current = destination
        }
        throw error(.invalidKeyPath, "'\(c.keyPath)' does not end in an attribute", c, entity)
    }

    // MARK: - Comparisons by target

    private func resolveAttributeComparison(
        _ c: PredicateComparison, path: ResolvedKeyPath, attribute: AttributeDescription,
        entity: ResolvedEntity
    ) throws(QueryError) -> ResolvedPredicate {
        let type = attribute.type
        let owner = path.hops.last?.destination.name ?? entity.name
        let subject = "\(owner).\(attribute.name) (\(type))"
        if c.op.isTextOperator, type != .string {
            throw valueError(.typeMismatch, "\(c.op.rawValue) compares strings; \(subject) is not a string", c, entity)
        }
        if !c.options.isEmpty {
            guard type == .string else {
                throw valueError(.typeMismatch, "\(c.options) applies to strings; \(subject) is not a string (drop \(c.options))", c, entity)
            }
            guard c.op == .equal || c.op == .notEqual || c.op == .in || c.op.isTextOperator else {
                throw error(
                    .typeMismatch,
                    "\(c.options) applies to ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES, "
                        + "not to \(c.op.rawValue)", c, entity)
            }
        }
        if c.op.isOrdering, type == .binary || type == .json {
            throw error(.typeMismatch, "\(c.op.rawValue) orders values; \(subject) has no order (compare with == or !=)", c, entity)
        }
        if let range = type.integerRange,
            let operands = try integerOperands(c, range: range, subject: subject, typeName: type.rawValue, entity)
        {
            return PredicateResolver.integerComparison(c.op, operands) { op, values in .compare(path, op, values.map { .integer($0) }, []) }
        }
        switch c.op {
        case .equal, .notEqual:
            let value = try coerce(c.value, to: attribute, subject: subject, c, entity, allowingNil: true)
            if !c.options.isEmpty, let text = value?.stringValue {
                let folded = ResolvedPredicate.compare(path, .equal, [.string(PredicateText.fold(text, c.options))], c.options)
                return c.op == .equal ? folded : .not(folded)
            }
            return .compare(path, c.op, [value], [])
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let value = try coerce(c.value, to: attribute, subject: subject, c, entity, allowingNil: false)
            return .compare(path, c.op, [value], [])
        case .between:
            guard case .list(let bounds) = c.value, bounds.count == 2 else {
                throw valueError(.typeMismatch, "BETWEEN takes two bounds, {low, high}; found \(c.value.kindDescription)", c, entity)
            }
            let low = try coerce(bounds[0], to: attribute, subject: subject, c, entity, allowingNil: false)
            let high = try coerce(bounds[1], to: attribute, subject: subject, c, entity, allowingNil: false)
            return .compare(path, .between, [low, high], [])
        case .in:
            let elements: [PredicateValue]
            if case .list(let list) = c.value { elements = list } else { elements = [c.value] }
            var values: [AttributeValue?] = []
            for element in elements {
                values.append(try coerce(element, to: attribute, subject: subject, c, entity, allowingNil: false))
            }
            if !c.options.isEmpty {
                return .or(values.map { .compare(path, .equal, [.string(PredicateText.fold($0?.stringValue ?? "", c.options))], c.options) })
            }
            return .compare(path, .in, values, [])
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = try coerce(c.value, to: attribute, subject: subject, c, entity, allowingNil: false)?.stringValue else {
                throw valueError(.typeMismatch, "\(c.op.rawValue) needs a string", c, entity)
            }
            if c.op == .matches {
                do {
                    _ = try PredicateText.regularExpression(text, c.options)
                } catch {
                    throw valueError(
                        .invalidRegularExpression,
                        "'\(text)' is not a valid regular expression (ICU syntax, "
                            + "https://unicode-org.github.io/icu/userguide/strings/regexp.html); check its brackets, "
                            + "parentheses and escapes", c, entity)
                }
                return .compare(path, .matches, [.string(text)], c.options)
            }
            return .compare(path, c.op, [.string(PredicateText.fold(text, c.options))], c.options)
        }
    }

    private func resolveToOneComparison(
        _ c: PredicateComparison, path: ResolvedKeyPath, destination: ResolvedEntity,
        entity: ResolvedEntity
    ) throws(QueryError) -> ResolvedPredicate {
        guard c.op == .equal || c.op == .notEqual || c.op == .in else {
            throw error(
                .typeMismatch,
                "'\(c.keyPath)' is a to-one relationship: compare it with ==, != or IN and object IDs "
                    + "or nil, or compare one of \(destination.name)'s attributes (\(c.keyPath).\(destination.attributes.first?.name ?? "name"))",
                c, entity)
        }
        let ids = try objectIDs(c, destination: destination, entity: entity)
        switch c.op {
        case .equal, .notEqual:
            guard ids.count == 1, !isList(c.value) else {
                throw valueError(.typeMismatch, "\(c.keyPath) \(c.op.rawValue) takes one object ID or nil", c, entity)
            }
            return .compare(path, c.op, [ids[0].map { .integer($0.primaryKey) }], [])
        case .in:
            return .compare(path, .in, ids.map { $0.map { .integer($0.primaryKey) } }, [])
        default:
            throw error(
                .typeMismatch,
                "'\(c.keyPath)' is a to-one relationship: compare it with ==, != or IN and object IDs "
                    + "or nil, or compare one of \(destination.name)'s attributes (\(c.keyPath).\(destination.attributes.first?.name ?? "name"))",
                c, entity)
        }
    }

    private func resolveSelf(_ c: PredicateComparison, _ entity: ResolvedEntity) throws(QueryError) -> ResolvedPredicate {
        let ids = try objectIDs(c, destination: entity, entity: entity)
        let set = Set(ids.compactMap { $0 })
        switch c.op {
        case .equal where !isList(c.value) && ids.count == 1: return ids[0] == nil ? .constant(false) : .objectIDs(set)
        case .notEqual where !isList(c.value) && ids.count == 1: return ids[0] == nil ? .constant(true) : .not(.objectIDs(set))
        case .in: return .objectIDs(set)
        default:
            throw error(.typeMismatch, "SELF is compared with ==, != or IN and object IDs", c, entity)
        }
    }

    private func resolveCount(_ c: PredicateComparison, _ path: ResolvedToManyPath, _ entity: ResolvedEntity) throws(QueryError)
        -> ResolvedPredicate
    {
        switch c.op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .in:
            guard let operands = try integerOperands(c, range: Int64.min...Int64.max, subject: c.keyPath, typeName: "a count", entity) else {
                if c.op == .between {
                    throw valueError(.typeMismatch, "BETWEEN takes two bounds, {low, high}", c, entity)
                }
                throw valueError(
                    .typeMismatch, "\(c.keyPath) is a count (an integer); it cannot be compared with \(c.value.kindDescription)",
                    c, entity)
            }
            return PredicateResolver.integerComparison(c.op, operands) { op, counts in .count(path, op, counts) }
        default:
            throw error(.typeMismatch, "\(c.op.rawValue) does not apply to a count (\(c.keyPath))", c, entity)
        }
    }

    /// The numeric operands of a comparison with an integer (one; two for BETWEEN; the
    /// list's for IN), or nil when one is not a number (`nil`, a string: the caller says why).
    private func integerOperands(
        _ c: PredicateComparison, range: ClosedRange<Int64>, subject: String, typeName: String,
        _ entity: ResolvedEntity
    ) throws(QueryError) -> [IntegerOperand]? {
        let values: [PredicateValue]
        switch c.op {
        case .between:
            guard case .list(let bounds) = c.value, bounds.count == 2 else { return nil }
            values = bounds
        case .in:
            if case .list(let list) = c.value { values = list } else { values = [c.value] }
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            values = [c.value]
        default:
            return nil
        }
        var operands: [IntegerOperand] = []
        for value in values {
            guard let operand = try integerOperand(value, in: range, subject: subject, typeName: typeName, c, entity) else { return nil }
            operands.append(operand)
        }
        return operands
    }

    // MARK: - Values

    private func isList(_ value: PredicateValue) -> Bool {
        if case .list = value { return true }
        return false
    }

    /// Object IDs (nil for `nil`) of `destination`'s kind, from a single value or a list.
    private func objectIDs(_ c: PredicateComparison, destination: ResolvedEntity, entity: ResolvedEntity) throws(QueryError)
        -> [ObjectID?]
    {
        let elements: [PredicateValue]
        if case .list(let list) = c.value { elements = list } else { elements = [c.value] }
        var ids: [ObjectID?] = []
        for element in elements {
            switch element {
            case .null: ids.append(nil)
            case .objectID(let id):
                guard model.entity(id.entityName, isKindOf: destination.rootName) else {
                    throw valueError(.typeMismatch, "\(id) is not an object of \(destination.name)'s hierarchy", c, entity)
                }
                ids.append(id)
            default:
                throw valueError(
                    .typeMismatch,
                    "'\(c.keyPath)' holds objects of \(destination.name); compare it with object IDs "
                        + "(%@ with an ObjectID) or nil, not \(element.kindDescription)", c, entity)
            }
        }
        return ids
    }

    // MARK: - Sort descriptors

    func resolve(_ descriptor: ObjectSortDescriptor, in entity: ResolvedEntity) throws(QueryError) -> ResolvedSortDescriptor {
        let components = descriptor.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var hops: [ResolvedHop] = []
        var current = entity
        for (position, name) in components.enumerated() {
            let isLast = position == components.count - 1
            if isLast, let index = current.attributeIndex(of: name) {
                let type = current.attributes[index].type
                guard type != .binary && type != .json else {
                    throw QueryError(
                        .invalidRequest,
                        message: "cannot sort by '\(descriptor.keyPath)': \(current.name).\(name) is \(type), "
                            + "which has no order", entity: entity.name, keyPath: descriptor.keyPath)
                }
                return ResolvedSortDescriptor(
                    keyPath: ResolvedKeyPath(
                        hops: hops, target: .attribute(entity: current, index: index),
                        text: descriptor.keyPath), ascending: descriptor.ascending)
            }
            guard let index = current.relationshipIndex(of: name) else {
                throw QueryError(
                    .invalidRequest,
                    message: "cannot sort by '\(descriptor.keyPath)': "
                        + PredicateResolver.unknownNameMessage(name, in: current), entity: entity.name, keyPath: descriptor.keyPath)
            }
            let relationship = current.relationships[index]
            guard !relationship.isToMany else {
                throw QueryError(
                    .invalidRequest,
                    message: "cannot sort by '\(descriptor.keyPath)': \(current.name).\(name) is a to-many "
                        + "relationship; sort keys are attributes, or attributes through to-one relationships",
                    entity: entity.name, keyPath: descriptor.keyPath)
            }
            guard !isLast, let destination = model.entity(named: relationship.destinationEntity) else {
                // An attribute the destination has: `name` when there is one.
                let names = model.entity(named: relationship.destinationEntity)?.attributes.map(\.name) ?? []
                let example = names.contains("name") ? "name" : names.first ?? "name"
                throw QueryError(
                    .invalidRequest,
                    message: "cannot sort by '\(descriptor.keyPath)': \(current.name).\(name) is a to-one "
                        + "relationship; sort by one of its attributes (\(descriptor.keyPath).\(example))",
                    entity: entity.name, keyPath: descriptor.keyPath)
            }
            hops.append(ResolvedHop(source: current, index: index, destination: destination))
            current = destination
        }
        throw QueryError(.invalidRequest, message: "cannot sort by '\(descriptor.keyPath)'", entity: entity.name, keyPath: descriptor.keyPath)
    }

    // MARK: - Errors

    static func unknownNameMessage(_ name: String, in entity: ResolvedEntity) -> String {
        let attributes = entity.attributes.map(\.name)
        let relationships = entity.relationships.map(\.name)
        var text =
            "\(entity.name) has no attribute or relationship '\(name)'; its attributes: "
            + (attributes.isEmpty ? "none" : attributes.joined(separator: ", "))
        if !relationships.isEmpty { text += "; its relationships: " + relationships.joined(separator: ", ") }
        return text
    }

    private func unknownName(_ name: String, in current: ResolvedEntity, _ c: PredicateComparison, root: ResolvedEntity) -> QueryError {
        error(.unknownProperty, PredicateResolver.unknownNameMessage(name, in: current), c, root)
    }

    func error(_ code: QueryError.Code, _ message: String, _ c: PredicateComparison, _ entity: ResolvedEntity) -> QueryError {
        QueryError(code, message: message, column: c.column, entity: entity.name, keyPath: c.keyPath)
    }

    func valueError(_ code: QueryError.Code, _ message: String, _ c: PredicateComparison, _ entity: ResolvedEntity) -> QueryError {
        QueryError(code, message: message, column: c.valueColumn ?? c.column, entity: entity.name, keyPath: c.keyPath)
    }
}
