/// Writes managed objects as JSON: the reverse of the importer. What it writes, an import
/// with default options reads back: into the same store, every object is unchanged; into an
/// empty store, it gives the same objects and links (`RoundTripTests`).
///
/// - Mapped attributes go to their `JSONKeyPath`s (nested key paths rebuild nested
///   objects: `real_name.foo.bar.name`; key paths through array indexes rebuild arrays:
///   `weather.0.description` and `weather.1.description` give `"weather": [{…}, {…}]`, see
///   ``ExportArrayShape``); unmapped properties are not written.
/// - Values take the JSON form of their ``AttributeType`` (dates as RFC 3339 UTC strings
///   with milliseconds, or as many fraction digits as the stored date needs, see
///   ``RFC3339/exactString(from:)``; decimals with their digits, binary as base64); an
///   attribute with a `JSONTransformerName` goes through the transformer's reverse.
///   A reverse that gives no value writes `null` (or nothing, with ``ExportOptions/NilPolicy/omit``);
///   a transformer without a reverse falls back to the attribute type's JSON form.
/// - Relationships are nested objects or identifiers (``ExportOptions/relationshipStyle``).
///   Nested, each object is written in full at most once per exported top-level object
///   (depth first, in property order); every later occurrence in that object's tree is its
///   identifier. So cycles are cut even without inverse relationships, and the output stays
///   small on densely linked graphs: O(reachable objects × their links) per top-level
///   object, where writing every path (cut only on cycles) grows factorially. Unordered to-manys are sorted by the
///   destinations' identity values (then object IDs), so output is deterministic.
/// - A placeholder (known only by its identity, from a bare identifier) is its identifier
///   where it is related to another object; at the top level it is the object of its
///   identity attributes at their key paths (`{"id": 7}`), which an import reads back as a
///   reference (the same placeholder: see `Importer+References.swift`), so an exported array
///   is always an array of objects. ``ExportOptions/placeholders`` `= .exclude` leaves
///   top-level placeholders out.
/// - An identifier that would not name the object through the relationship (its entity has
///   identity attributes of its own, the relationship's destination entity none: Cat 1
///   through a relationship to `Animal`) is the object's attributes instead (without its
///   relationships), from which the import's entity mapper chooses the sub-entity.
/// - An object without identity attributes has no identifier: it is always written in full
///   (in both styles), except where it is already being written further up the same tree
///   (or past ``ExportOptions/maximumDepth``), where the link is left out: the key of a
///   to-one, the element of a to-many. An import puts that link back through the
///   relationship's inverse, when there is one. Never `null` in an array.
///
///     let exporter = ObjectExporter(context: context)
///     let json = try exporter.json(for: batman)
///     // {"id": 1699, "name": "Batman", "powers": [{"id": 4, …}, …], "publisher": {"id": 10, …}}
///
/// The result is a ``JSONValue``: always valid JSON; writing text is `JSONWriter`'s job.
public struct ObjectExporter {
    /// The context whose objects are exported (destinations are faulted in through it).
    public let context: ObjectContext
    /// Nil policy, relationship style and depth limit.
    public var options: ExportOptions

    /// An exporter of `context`'s objects with `options`.
    public init(context: ObjectContext, options: ExportOptions = ExportOptions()) {
        self.context = context
        self.options = options
    }

    /// `object` as a JSON object; a placeholder (an object known only by its identity, made
    /// from a bare identifier) as the object of its identity attributes at their key paths
    /// (`{"objectId": "teamMISSNG"}`, `{"account": {"login": "ada"}}`), which an import of the
    /// entity reads back as a reference: the same placeholder, or the stored object unchanged.
    /// - Throws: ``ExportError`` (a reverse transformer threw, an unknown transformer name,
    ///   colliding key paths); store errors while faulting destinations in.
    public func json(for object: ManagedObject) throws -> JSONValue {
        if object.isPlaceholder { return try identityObject(of: object) }
        var tree = Tree()
        return try write(object, depth: 1, tree: &tree)
    }

    /// `objects` as a JSON array of objects, in the given order: placeholders as the objects
    /// of their identity attributes (``json(for:)-(ManagedObject)``), or left out with
    /// ``ExportOptions/PlaceholderPolicy/exclude``.
    /// - Throws: as ``json(for:)``.
    public func json(for objects: [ManagedObject]) throws -> JSONValue {
        switch options.placeholders {
        case .include: return .array(try objects.map { try json(for: $0) })
        case .exclude: return .array(try objects.filter { !$0.isPlaceholder }.map { try json(for: $0) })
        }
    }

    // MARK: - Internals

    typealias Tree = ExportTree

    /// `object` in full; `tree` holds the objects already written in full in this
    /// top-level object's tree, and those it is nested in.
    func write(_ object: ManagedObject, depth: Int, tree: inout Tree) throws -> JSONValue {
        tree.enter(object.objectID)
        defer { tree.leave(object.objectID) }
        var out = JSONValue.object(JSONObject(minimumCapacity: object.entity.attributeMappings.count))
        try writeAttributes(of: object, into: &out)
        for (slot, keyPath) in object.entity.relationshipMappings {
            let relationship = object.entity.relationships[slot]
            let ids = context.links(of: object, slot)
            if !relationship.isToMany {
                guard let id = ids.first, let destination = try context.object(with: id) else {
                    if options.nilPolicy == .null { setNull(at: keyPath, in: &out, object) }
                    continue
                }
                // Left out: an object without identity attributes that this one is nested in.
                guard let value = try destinationJSON(destination, of: relationship, depth: depth, tree: &tree) else { continue }
                try set(value, at: keyPath, in: &out, object, relationship.name, isRelationship: true)
            } else {
                var destinations = try ids.compactMap { try context.object(with: $0) }
                if !relationship.isOrdered { ObjectExporter.sortByIdentity(&destinations) }
                var items: [JSONValue] = []
                items.reserveCapacity(destinations.count)
                for destination in destinations {
                    if let item = try destinationJSON(destination, of: relationship, depth: depth, tree: &tree) { items.append(item) }
                }
                try set(.array(items), at: keyPath, in: &out, object, relationship.name, isRelationship: true)
            }
        }
        object.entity.exportArrayShape?.apply(to: &out)
        return out
    }

    /// A destination nested in full or as its identifier; nil to leave it out.
    ///
    /// An object without identity attributes has no identifier (an import would read
    /// `null`, and find nothing by it): it is written in full wherever it appears, except
    /// where it is being written already, further up this tree, or past the depth limit;
    /// there it is left out (the key of a to-one, the element of a to-many). The import
    /// puts such a link back from the other side when the relationship has an inverse: the
    /// object that nests it links it after applying it.
    ///
    /// Where the relationship's destination entity has other identity attributes than the
    /// destination's own entity (cats and dogs numbered apart, the abstract `Animal`
    /// declaring none), its identifier would not name it through the relationship (a bare
    /// `4` could be Cat 4 or Dog 4): the reference is then the object's attributes, without
    /// its relationships, from which the import's entity mapper chooses the sub-entity and
    /// finds the object by its identity.
    private func destinationJSON(
        _ destination: ManagedObject, of relationship: RelationshipDescription, depth: Int,
        tree: inout Tree
    ) throws -> JSONValue? {
        switch try destinationForm(destination, of: relationship, depth: depth, tree: tree) {
        case .omitted: return nil
        case .reference(let value): return value
        case .full: return try write(destination, depth: depth + 1, tree: &tree)
        }
    }

    /// How a destination met at `depth` is written (``destinationJSON(_:of:depth:tree:)``).
    enum DestinationForm {
        /// Left out (the key of a to-one, the element of a to-many).
        case omitted
        /// Its identifier, or the attributes that name it through the relationship.
        case reference(JSONValue)
        /// In full, one level deeper.
        case full
    }

    /// The form of `destination` nested at `depth` in `tree` (see ``destinationJSON(_:of:depth:tree:)``).
    func destinationForm(
        _ destination: ManagedObject, of relationship: RelationshipDescription, depth: Int,
        tree: Tree
    ) throws -> DestinationForm {
        if destination.entity.identityAttributeIndexes.isEmpty {
            if tree.isOnPath(destination.objectID) || depth >= options.maximumDepth { return .omitted }
            return .full
        }
        if destination.isPlaceholder || options.relationshipStyle == .identifiers || depth >= options.maximumDepth
            || tree.hasWritten(destination.objectID)
        {
            let declared = context.model.entity(named: relationship.destinationEntity)
            if let declared, declared.identityAttributeIndexes != destination.entity.identityAttributeIndexes {
                return .reference(try attributes(of: destination))
            }
            return .reference(try identifier(of: destination))
        }
        return .full
    }

    /// `object`'s mapped attributes at their key paths (its relationships left out).
    private func attributes(of object: ManagedObject) throws -> JSONValue {
        var out = JSONValue.object(JSONObject(minimumCapacity: object.entity.attributeMappings.count))
        try writeAttributes(of: object, into: &out)
        object.entity.exportArrayShape?.apply(to: &out)
        return out
    }

    /// Writes `object`'s mapped attributes at their key paths into `out`, in model order.
    private func writeAttributes(of object: ManagedObject, into out: inout JSONValue) throws {
        for (index, keyPath) in object.entity.attributeMappings {
            guard let value = try attributeJSON(object, index) else {
                if options.nilPolicy == .null { setNull(at: keyPath, in: &out, object) }
                continue
            }
            try set(value, at: keyPath, in: &out, object, object.entity.attributes[index].name, isRelationship: false)
        }
    }

    /// The identity value (single identity); for a composite identity, an object holding
    /// each identity attribute at its JSON key path (`{"suit": "hearts", "rank": 1}`), which
    /// an import reads back as a reference to that object. (Objects without identity
    /// attributes are always written in full: ``destinationJSON(_:of:depth:tree:)``.)
    private func identifier(of object: ManagedObject) throws -> JSONValue {
        let indexes = object.entity.identityAttributeIndexes
        if indexes.count == 1 { return try attributeJSON(object, indexes[0]) ?? .null }
        if indexes.isEmpty {
            var tree = Tree()
            return try write(object, depth: 1, tree: &tree)
        }
        return try identityObject(of: object)
    }

    /// An object holding each identity attribute at its JSON key path (`{"id": 7}`,
    /// `{"suit": "hearts", "rank": 1}`): a composite identifier, and a top-level placeholder.
    private func identityObject(of object: ManagedObject) throws -> JSONValue {
        let indexes = object.entity.identityAttributeIndexes
        var out: JSONValue = .object(JSONObject(minimumCapacity: indexes.count))
        for index in indexes {
            let attribute = object.entity.attributes[index]
            let keyPath = object.entity.attributeMappings.first { $0.index == index }?.keyPath ?? JSONKeyPath(key: attribute.name)
            try set(try attributeJSON(object, index) ?? .null, at: keyPath, in: &out, object, attribute.name, isRelationship: false)
        }
        object.entity.exportArrayShape?.apply(to: &out)
        return out
    }

    /// The JSON of attribute `index`, or nil for no value.
    func attributeJSON(_ object: ManagedObject, _ index: Int) throws -> JSONValue? {
        guard let value = object.values[index] else { return nil }
        let entity = object.entity
        guard let name = entity.attributeTransformerNames[index] else { return exportJSON(value, as: entity.attributeTypes[index]) }
        let transformer: JSONValueTransformer
        do {
            transformer = try context.bindings.transformers.transformer(named: name)
        } catch {
            let names = context.bindings.transformers.names
            throw ExportError(
                .unknownName, objectID: object.objectID, property: entity.attributes[index].name,
                message: "value transformer '\(name)' is not registered; registered: "
                    + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
        guard transformer.isReversible else { return exportJSON(value, as: entity.attributeTypes[index]) }
        do {
            let json = try transformer.reverseTransformedValue(value)
            if json.isNull { return Optional<JSONValue>.none }  // (a bare `nil` would be JSONValue.null)
            return json
        } catch let error as TransformError {
            throw ExportError(
                .transformFailed, objectID: object.objectID, property: entity.attributes[index].name,
                message: "value transformer '\(name)' cannot reverse \(value): \(error.message)")
        }
    }

    /// Writes a property's value at its key path. When the entity's key paths overlap, what
    /// is already there (written by a property before it, in model order) decides: nulls only
    /// are replaced; an object meeting an object is merged, the later members winning (a
    /// nested destination over the attributes written inside it); a relationship's value
    /// replaces the rest (an identifier over `owner.id`); an attribute's value meeting another
    /// attribute's different value is `.keyPathConflict`, as is a scalar in the way.
    private func set(
        _ value: JSONValue, at keyPath: JSONKeyPath, in out: inout JSONValue, _ object: ManagedObject,
        _ property: String, isRelationship: Bool
    ) throws {
        var value = value
        if object.entity.mappedKeyPathsOverlap, case .present(let existing) = keyPath.lookup(in: out),
            !ObjectExporter.holdsOnlyNulls(existing), existing != value
        {
            if case .object(let before) = existing, case .object(let after) = value {
                var merged = before
                for (key, member) in after { merged[key] = member }
                value = .object(merged)
            } else if !isRelationship {
                throw ExportError(
                    .keyPathConflict, objectID: object.objectID, property: property,
                    message: "cannot write \(jsonSnippet(value)) at '\(keyPath)': another property's value is there "
                        + "(\(jsonSnippet(existing)))")
            }
        }
        do {
            try keyPath.set(value, in: &out)
        } catch {
            throw ExportError(
                .keyPathConflict, objectID: object.objectID, property: property,
                message: "cannot write at '\(keyPath)': \(error)")
        }
    }

    /// Writes `null` at `keyPath` unless another property's value is there or in the way: a
    /// property without a value never replaces another's (a value, or an object holding one)
    /// nor makes the export fail (a string at `a` when this is `a.b`). Nulls replace nulls.
    private func setNull(at keyPath: JSONKeyPath, in out: inout JSONValue, _ object: ManagedObject) {
        if object.entity.mappedKeyPathsOverlap, case .present(let existing) = keyPath.lookup(in: out),
            !ObjectExporter.holdsOnlyNulls(existing)
        {
            return
        }
        try? keyPath.set(.null, in: &out)  // leaves `out` as it was when something is in the way
    }

    /// `null`, or an object whose members all hold only nulls: what properties without a
    /// value write, which a value may replace.
    static func holdsOnlyNulls(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return true
        case .object(let object): return object.values.allSatisfy { holdsOnlyNulls($0) }
        default: return false
        }
    }

    /// Sorts `objects` by ``identityOrder(_:_:)``: by insertion for the few destinations of
    /// most to-manys (no buffer to allocate), else by the standard library's sort.
    static func sortByIdentity(_ objects: inout [ManagedObject]) {
        guard objects.count > 1 else { return }
        guard objects.count <= 8 else {
            objects.sort(by: identityOrder)
            return
        }
        for i in 1..<objects.count {
            var j = i
            while j > 0, identityOrder(objects[j], objects[j - 1]) {
                objects.swapAt(j, j - 1)
                j -= 1
            }
        }
    }

    /// Orders objects by identity values (numbers numerically, strings by UTF-8 bytes), then object ID.
    static func identityOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        let ai = a.entity.identityAttributeIndexes
        let bi = b.entity.identityAttributeIndexes
        if ai.count == 1, bi.count == 1, case .integer(let x)? = a.values[ai[0]], case .integer(let y)? = b.values[bi[0]] {
            return x != y ? x < y : a.objectID < b.objectID  // (the common case, without the loop)
        }
        for (i, j) in zip(ai, bi) {
            switch (a.values[i], b.values[j]) {
            case (nil, nil): continue
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?):
                if x == y { continue }
                return valueOrder(x, y)
            }
        }
        return a.objectID < b.objectID
    }

    static func valueOrder(_ x: AttributeValue, _ y: AttributeValue) -> Bool {
        switch (x, y) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.string(let a), .string(let b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case (.double(let a), .double(let b)): return a < b
        case (.decimal(let a), .decimal(let b)): return a < b
        case (.date(let a), .date(let b)): return a < b
        case (.bool(let a), .bool(let b)): return !a && b
        case (.uuid(let a), .uuid(let b)): return a.uuidString < b.uuidString
        case (.uri(let a), .uri(let b)): return a.absoluteString < b.absoluteString
        case (.binary(let a), .binary(let b)): return a.lexicographicallyPrecedes(b)
        default: return x.description < y.description
        }
    }
}

extension ObjectContext {
    /// `objects` as a JSON array (see ``ObjectExporter``).
    ///
    ///     let json = try context.exportJSON([batman], options: ExportOptions())
    ///
    /// - Throws: ``ExportError``; store errors.
    public func exportJSON(_ objects: [ManagedObject], options: ExportOptions = ExportOptions()) throws -> JSONValue {
        try ObjectExporter(context: self, options: options).json(for: objects)
    }

    /// `object` as a JSON object (see ``ObjectExporter``).
    /// - Throws: ``ExportError``; store errors.
    public func exportJSON(_ object: ManagedObject, options: ExportOptions = ExportOptions()) throws -> JSONValue {
        try ObjectExporter(context: self, options: options).json(for: object)
    }
}
