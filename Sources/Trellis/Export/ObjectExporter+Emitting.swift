/// Writing objects straight as JSON text, for streamed exports: the bytes
/// `JSONEmitter.write(json(for: object))` gives, without building the ``JSONValue`` tree first.
///
/// Objects of an entity whose mapped key paths are each one key and do not overlap
/// (``ResolvedEntity/exportsFlat``: no `user.id`, no `weather.0.description`) are written
/// member by member, in the order ``ObjectExporter/write(_:depth:tree:)`` inserts them (the
/// attributes in model order, then the relationships); the others, placeholders, and any
/// writer that sorts keys, go through the ``JSONValue`` path. When anything throws while an
/// object is being written, its text is taken back and the object is exported again
/// through the ``JSONValue`` path, so the error is the one ``json(for:)`` and `JSONWriter`
/// give (the same ``ExportError``, the same `JSONWriteError` path).
///
/// - Complexity: O(the object's tree), with no allocation per member for scalar values.
extension ObjectExporter {
    /// Appends `object` as the exported element at `index`, written as if nested `indent`
    /// levels deep (for pretty indentation).
    /// - Throws: as ``json(for:)``, and `JSONWriteError` as `JSONWriter` does for its value.
    func emit(_ object: ManagedObject, into emitter: inout JSONEmitter, indent: Int, index: Int) throws {
        if object.isPlaceholder || !Self.emitsFlat(object.entity, emitter) {
            try emitter.write(try json(for: object), depth: indent, pathPrefix: JSONPath.root.appending(index: index))
            return
        }
        let start = emitter.output.count
        do {
            var tree = Tree()
            try emitFlat(object, depth: 1, indent: indent, tree: &tree, into: &emitter)
        } catch {
            emitter.output.removeSubrange(start...)
            try emitter.write(try json(for: object), depth: indent, pathPrefix: JSONPath.root.appending(index: index))
        }
    }

    /// `object` in full at exporter depth `depth` (the exported object is 1), as
    /// ``write(_:depth:tree:)`` builds it, for an entity that ``ResolvedEntity/exportsFlat``.
    private func emitFlat(
        _ object: ManagedObject, depth: Int, indent: Int, tree: inout Tree,
        into emitter: inout JSONEmitter
    ) throws {
        tree.enter(object.objectID)
        defer { tree.leave(object.objectID) }
        let entity = object.entity
        let keys = entity.flatExportKeys
        var members = 0
        func member(_ key: Int, _ emitter: inout JSONEmitter) {
            emitter.output.append(members == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
            emitter.newline(indent + 1)
            emitter.output.append(contentsOf: keys[key])
            emitter.output.append(UInt8(ascii: ":"))
            if emitter.pretty { emitter.output.append(0x20) }
            members += 1
        }
        let attributeCount = entity.attributeMappings.count
        for (n, mapping) in entity.attributeMappings.enumerated() {
            guard let value = try attributeJSON(object, mapping.index) else {
                if options.nilPolicy == .null {
                    member(n, &emitter)
                    emitter.appendASCII("null")
                }
                continue
            }
            member(n, &emitter)
            try emitValue(value, indent: indent + 1, into: &emitter)
        }
        for (n, mapping) in entity.relationshipMappings.enumerated() {
            let slot = mapping.index
            let key = attributeCount + n
            let relationship = entity.relationships[slot]
            let ids = context.links(of: object, slot)
            if !relationship.isToMany {
                guard let id = ids.first, let destination = try context.object(with: id) else {
                    if options.nilPolicy == .null {
                        member(key, &emitter)
                        emitter.appendASCII("null")
                    }
                    continue
                }
                let form = try destinationForm(destination, of: relationship, depth: depth, tree: tree)
                if case .omitted = form { continue }
                member(key, &emitter)
                try emitDestination(destination, form, depth: depth, indent: indent + 1, tree: &tree, into: &emitter)
            } else {
                var destinations = try ids.compactMap { try context.object(with: $0) }
                if !relationship.isOrdered { ObjectExporter.sortByIdentity(&destinations) }
                member(key, &emitter)
                var items = 0
                for destination in destinations {
                    let form = try destinationForm(destination, of: relationship, depth: depth, tree: tree)
                    if case .omitted = form { continue }
                    emitter.output.append(items == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
                    emitter.newline(indent + 2)
                    try emitDestination(destination, form, depth: depth, indent: indent + 2, tree: &tree, into: &emitter)
                    items += 1
                }
                if items == 0 {
                    emitter.appendASCII("[]")
                } else {
                    emitter.newline(indent + 1)
                    emitter.output.append(UInt8(ascii: "]"))
                }
            }
        }
        if members == 0 {
            emitter.appendASCII("{}")
        } else {
            emitter.newline(indent)
            emitter.output.append(UInt8(ascii: "}"))
        }
    }

    /// A destination of an object at exporter depth `depth`, in `form`, at `indent`.
    private func emitDestination(
        _ destination: ManagedObject, _ form: DestinationForm, depth: Int, indent: Int,
        tree: inout Tree, into emitter: inout JSONEmitter
    ) throws {
        switch form {
        case .omitted:
            return
        case .reference(let value):
            try emitValue(value, indent: indent, into: &emitter)
        case .full:
            if Self.emitsFlat(destination.entity, emitter) {
                try emitFlat(destination, depth: depth + 1, indent: indent, tree: &tree, into: &emitter)
            } else {
                try emitter.write(try write(destination, depth: depth + 1, tree: &tree), depth: indent, pathPrefix: .root)
            }
        }
    }

    /// Whether objects of `entity` are written member by member (``ResolvedEntity/exportsFlat``)
    /// by `emitter`: not when it sorts keys, nor when it escapes a `/` that a key holds.
    @inline(__always)
    private static func emitsFlat(_ entity: ResolvedEntity, _ emitter: JSONEmitter) -> Bool {
        entity.exportsFlat && !emitter.sortedKeys && !(emitter.escapesForwardSlashes && entity.flatExportKeysHoldSlash)
    }

    /// A value at `indent`: scalars appended directly, containers through the emitter.
    @inline(__always)
    private func emitValue(_ value: JSONValue, indent: Int, into emitter: inout JSONEmitter) throws {
        switch value {
        case .null: emitter.appendASCII("null")
        case .bool(let b): emitter.appendASCII(b ? "true" : "false")
        case .string(let s): emitter.appendString(s)
        case .number(let n):
            if case .int(let i) = n.storage { emitter.appendInteger(i) } else { try emitter.write(value, depth: indent, pathPrefix: .root) }
        case .array, .object: try emitter.write(value, depth: indent, pathPrefix: .root)
        }
    }
}
