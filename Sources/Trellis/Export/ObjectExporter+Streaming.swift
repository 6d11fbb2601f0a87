import Foundation

/// Streamed exports: a fetch request's objects written as JSON text as they are read, so
/// that memory stays bounded by one batch of objects whatever the number exported.
extension ObjectExporter {
    /// The text a streamed export writes.
    public enum TextFormat: Sendable, Equatable {
        /// One JSON array of the objects, then a newline: byte for byte what
        /// ``JSONWriter`` writes for ``json(for:)-([ManagedObject])`` with these options
        /// (`[]` for no objects).
        case array(JSONWriter.Options)
        /// NDJSON (JSON Lines): each object compact on a line of its own, ending with a
        /// newline; nothing for no objects. `trellis import --format ndjson` and `jq -c` read it.
        case lines
    }

    /// Writes the objects `request` asks for (its predicate, sort, offset and limit) as
    /// `format`, reading them `batchSize` at a time in one read session of the store (one
    /// committed state, as ``ObjectContext/read(_:)``) and writing each object as it is
    /// built. Each batch's related objects are fetched together (one store fetch per level
    /// of nesting), and the objects registered for a batch are dropped after it: memory
    /// holds one batch of objects, their related objects and about 64 KiB of text. (The
    /// SQLite and PostgreSQL stores read their rows a batch at a time; the in-memory store
    /// holds them all anyway, see ``StoreSession/fetch(_:batchSize:_:)``.) Objects of
    /// entities whose key paths are single keys are written straight as text, without a
    /// ``JSONValue`` tree (`ObjectExporter+Emitting.swift`): the same bytes.
    ///
    ///     let handle = try FileHandle(forWritingTo: url)
    ///     let count = try ObjectExporter(context: context).write(ObjectFetchRequest(entity: "Character"), as: .lines) {
    ///         try handle.write(contentsOf: $0)
    ///     }
    ///
    /// Objects are written as ``json(for:)-(ManagedObject)`` writes them; placeholders are
    /// left out with ``ExportOptions/PlaceholderPolicy/exclude``.
    /// - Parameters:
    ///   - batchSize: objects read per batch (at least 1; default 1000).
    ///   - sink: receives the UTF-8 text in order, in chunks of about 64 KiB.
    /// - Returns: the number of objects written.
    /// - Throws: ``ModelError``, ``QueryError`` as ``ObjectContext/fetch(_:)-(ObjectFetchRequest)``;
    ///   ``ExportError``; `JSONWriteError` (a non-finite number); store errors; what `sink`
    ///   throws. The text written until then is incomplete.
    @discardableResult
    public func write(
        _ request: ObjectFetchRequest, as format: TextFormat = .array(.compact), batchSize: Int = 1000,
        to sink: (Data) throws -> Void
    ) throws -> Int {
        let resolved = try request.resolved(in: context.model)
        var emitter: JSONEmitter
        switch format {
        case .array(let options): emitter = JSONEmitter(options: options)
        case .lines: emitter = JSONEmitter(options: .compact)
        }
        var count = 0
        func flush() throws {
            guard !emitter.output.isEmpty else { return }
            try sink(Data(emitter.output))
            emitter.output.removeAll(keepingCapacity: true)
        }
        try context.read {
            try context.forEachBatch(of: resolved, batchSize: max(1, batchSize)) { objects, drops in
                try prefetchDestinations(of: objects, skippingUnread: drops)
                for object in objects {
                    if object.isPlaceholder && options.placeholders == .exclude { continue }
                    switch format {
                    case .array:
                        emitter.output.append(count == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
                        emitter.newline(1)
                        try emit(object, into: &emitter, indent: 1, index: count)
                    case .lines:
                        try emit(object, into: &emitter, indent: 0, index: count)
                        emitter.output.append(0x0A)
                    }
                    count += 1
                    if emitter.output.count >= 1 << 16 { try flush() }
                }
            }
        }
        if case .array = format {
            if count == 0 {
                emitter.appendASCII("[]")
            } else {
                emitter.newline(0)
                emitter.output.append(UInt8(ascii: "]"))
            }
            emitter.output.append(0x0A)
        }
        try flush()
        return count
    }

    /// Registers, level by level, the related objects the export of `objects` reads: the
    /// destinations of their mapped relationships, then theirs (as deep as objects are
    /// nested), one store fetch per level instead of one per object.
    private func prefetchDestinations(of objects: [ManagedObject], skippingUnread: Bool) throws {
        var frontier = objects
        var depth = 1
        while !frontier.isEmpty && depth <= options.maximumDepth {
            var wanted: [ObjectID] = []
            var seen = Set<ObjectID>()
            for object in frontier where !object.isPlaceholder {
                for (slot, _) in object.entity.relationshipMappings {
                    for id in context.links(of: object, slot) where context.registered[id] == nil && seen.insert(id).inserted {
                        wanted.append(id)
                    }
                }
            }
            if wanted.isEmpty { return }
            frontier = try context.registerObjects(wanted, skippingUnread: skippingUnread)
            if options.relationshipStyle == .identifiers {
                // Destinations are identifiers; only those without identity attributes are nested.
                frontier = frontier.filter { $0.entity.identityAttributeIndexes.isEmpty }
            }
            depth += 1
        }
    }
}
