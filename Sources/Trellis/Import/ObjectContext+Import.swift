/// Importing JSON into the graph.
extension ObjectContext {
    /// Imports JSON as objects of `entity`, merging by identity, in one store transaction.
    ///
    /// Objects whose identity attributes match a stored (or registered) object update it;
    /// the rest are inserted. Identity values are coerced to the attributes' types first,
    /// so `"42"` and `42` find the same `integer64` object. A missing key leaves a value
    /// unchanged (new objects get the model default); `null` clears an attribute or to-one
    /// and empties a to-many (see ``ImportOptions/nullPolicy``). Relationship values may be
    /// nested objects, bare identifiers (strings or numbers; booleans never are), or arrays
    /// mixing both; unknown identifiers become placeholders that a later import completes.
    /// `null` elements of such an array, and of the top-level array, are skipped and counted
    /// (``ImportReport/nullElementsSkipped``), as Groot skips them. A nested object of an
    /// entity without identity attributes is looked for among the relationship's current
    /// destinations (unchanged ones first), so a re-import updates it instead of inserting
    /// another (docs/ModelFormat.md, "Objects without identity attributes"). What
    /// ``ObjectExporter`` writes, this reads back unchanged.
    ///
    ///     let json: JSONValue = [["id": "1699", "name": "Batman", "publisher": ["id": "10", "name": "DC Comics"]]]
    ///     let report = try context.importObjects(from: json, entity: "Character")
    ///     report.counts(for: "Character").inserted   // 1
    ///
    /// The import saves: its changes (and any unsaved changes of the context, which are
    /// written with its first batch) go to the store in one `store.write`; afterwards the
    /// imported objects are not kept registered — fetch them with
    /// ``object(with:)`` and ``ImportReport/objectIDs``. Registered objects the payload
    /// touched are updated in place, after being brought up to date with the store inside
    /// the import's transaction (another connection may have changed or deleted them since
    /// they were read; unsaved changes are kept), so the payload is compared with what is
    /// stored.
    ///
    /// Each JSON object's identity is looked up in the identity namespace of the entity the
    /// entity mapper chose for it (else the requested entity), so sub-entities with identities
    /// of their own (cats and dogs numbered apart) are found through their parent; a
    /// placeholder of a parent entity is completed as the sub-entity an object turns out to
    /// be (same stored object and links). docs/ModelFormat.md ("Identity across
    /// sub-entities") gives the rule for every combination.
    ///
    /// Relationships are walked by the entity the import was asked for (or the entity
    /// mapper's choice); relationships declared only on a sub-entity of a stored object
    /// found through its parent entity are not read (attributes of the stored object's own
    /// entity are). A one-to-one link that moves faults the previous partner in by ID.
    ///
    /// - Parameters:
    ///   - json: an array of objects and/or bare identifiers (`$[i]`); a single object
    ///     (`$`); or, when ``ImportOptions/keyAttribute`` is set, an object keyed by
    ///     identifier (`$["1699"]`).
    ///   - entity: the entity name in the context's model (abstract entities need an entity mapper).
    ///   - options: null and to-many policies, deletion scope, dry run, batch size.
    /// - Returns: the top-level objects' IDs in input order and per-entity counts.
    /// - Throws: ``ImportError`` naming the JSON path of the failing value
    ///   (`$[3].powers[1].id`), the entity, the property and the value, among them the
    ///   relationship rules (a non-optional to-one without destination, a to-many outside
    ///   `minCount`…`maxCount`: docs/ModelFormat.md, "Relationship rules"); ``ModelError``
    ///   `.unknownEntity`; ``StoreError`` (e.g. `.constraintViolation`). On any error the
    ///   store and the context are exactly as before the call.
    /// - Complexity: O(n) in JSON values; per batch, one store fetch per identity namespace.
    public func importObjects(from json: JSONValue, entity: String, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        switch json {
        case .array(let elements):
            var source = JSONImportSource(array: elements)
            return try importObjects(from: &source, entity: entity, options: options)
        case .object(let object) where options.keyAttribute != nil:
            var source = JSONImportSource(keyedObject: object)
            return try importObjects(from: &source, entity: entity, options: options)
        default:
            var source = SingleElementSource(element: ImportElement(value: json, path: .root))
            return try importObjects(from: &source, entity: entity, options: options)
        }
    }

    /// Imports the elements of `source` as objects of `entity`, in batches of
    /// ``ImportOptions/batchSize`` elements inside one store transaction, so memory stays
    /// proportional to the batch size (plus one small entry per distinct object for the
    /// report's counts, and one ID per element unless ``ImportOptions/reportsObjectIDs`` is off).
    ///
    ///     var source = JSONImportSource(array: elements)
    ///     let report = try context.importObjects(from: &source, entity: "Character")
    ///
    /// - Parameters: as ``importObjects(from:entity:options:)``; each element is an object
    ///   or a bare identifier, located by ``ImportElement/path``.
    /// - Returns: as ``importObjects(from:entity:options:)``.
    /// - Throws: as ``importObjects(from:entity:options:)``, plus whatever the source
    ///   throws. Atomic: nothing is kept on error. When the store runs the transaction again
    ///   after a conflict with a concurrent one, the source starts over
    ///   (``ImportSource/rewind()``); one that cannot gives `StoreError.transactionConflict`.
    public func importObjects<Source: ImportSource>(
        from source: inout Source, entity: String,
        options: ImportOptions = ImportOptions()
    ) throws -> ImportReport {
        try importObjects(from: &source, entity: entity, options: options, inTransaction: { _, _ in })
    }

    /// As ``importObjects(from:entity:options:)-(Source,_,_)``, running `work` inside the
    /// import's write transaction once every object is applied, before the commit: what
    /// `work` writes through the session (``StoreSession/setMetadataValue(_:forKey:)``, more
    /// changes) commits or rolls back together with the imported objects.
    ///
    ///     let report = try context.importObjects(from: &page, entity: "Hero", options: options) { session, report in
    ///         try session.setMetadataValue(checkpoint, forKey: "sync/heroes")   // same transaction
    ///     }
    ///
    /// - Parameter work: receives the write session and the import's report; it must not
    ///   use the context (the import owns it until it returns). In a dry run it runs too,
    ///   and is rolled back with the rest.
    /// - Throws: as ``importObjects(from:entity:options:)-(Source,_,_)``, and whatever
    ///   `work` throws (then nothing is kept: neither the objects nor `work`'s writes).
    public func importObjects<Source: ImportSource>(
        from source: inout Source, entity: String, options: ImportOptions = ImportOptions(),
        inTransaction work: (any StoreSession, ImportReport) throws -> Void
    ) throws -> ImportReport {
        let root = try entityInfo(entity)
        let checkpoint = ContextCheckpoint(self)
        epoch += 1
        let importEpoch = epoch
        // A store may run the transaction again after a conflict with a concurrent one
        // (PersistentStore.write): each run starts from the checkpoint and the first element.
        var runs = 0
        do {
            let report = try store.write { session -> ImportReport in
                runs += 1
                if runs > 1 {
                    checkpoint.restore(self)
                    guard try source.rewind() else {
                        throw StoreError(
                            .transactionConflict,
                            message: "the import conflicted with a concurrent transaction "
                                + "(a serialization failure or a deadlock) and was rolled back; it was not run again "
                                + "because its input cannot be read a second time")
                    }
                }
                if options.origin != origin, !dirty.isEmpty {
                    // The context's own unsaved changes are written first, as what they are.
                    prepare(session, origin: origin)
                    try validateRequiredValues()
                    let changes = makeChangeSet()
                    didSave(changes.isEmpty ? [:] : try session.apply(changes), dropEpoch: nil)
                }
                prepare(session, origin: options.origin)
                self.session = session
                defer { self.session = nil }
                try session.lock(scope: "import \(root.entity.rootName)", exclusive: options.deleteMissing.map { !$0.dryRun } ?? false)
                let importer = Importer(context: self, session: session, root: root, options: options, epoch: importEpoch)
                let report = try importer.run(&source)
                try work(session, report)
                if options.dryRun { throw DryRunCompleted(report: report) }
                return report
            }
            return report
        } catch let completed as DryRunCompleted {
            checkpoint.restore(self)
            return completed.report
        } catch {
            checkpoint.restore(self)
            throw error
        }
    }
}

/// Thrown out of the store's write closure to roll a dry run back.
private struct DryRunCompleted: Error {
    let report: ImportReport
}

/// A source of one element.
struct SingleElementSource: ImportSource {
    var element: ImportElement?
    mutating func nextElement() throws -> ImportElement? {
        defer { element = nil }
        return element
    }
}

/// Everything an import may change in a context, to restore it when the import fails.
/// O(registered objects) to take; imports register their own objects only temporarily.
struct ContextCheckpoint {
    let registered: [ObjectID: ManagedObject]
    let identityMap: [NamespacedIdentity: ManagedObject]
    let dirty: [ManagedObject]
    let pendingUnregistered: [ObjectID: [PendingLinks]]
    let nextTemporaryKey: Int64
    let retyped: [ObjectID: ObjectID]
    let objects: [(ManagedObject, ObjectState)]

    struct ObjectState {
        let id: ObjectID
        let isPlaceholder: Bool
        let values: [AttributeValue?]
        let links: [[ObjectID]]
        let pending: [PendingLinks]?
        let committed: CommittedState?
        let isInserted: Bool
        let isDeleted: Bool
        let directLinks: UInt64
        let isInDirtyList: Bool
        let replacement: ManagedObject?
        let retypedFrom: ObjectID?
    }

    init(_ context: ObjectContext) {
        registered = context.registered
        identityMap = context.identityMap
        dirty = context.dirty
        pendingUnregistered = context.pendingUnregistered
        nextTemporaryKey = context.nextTemporaryKey
        retyped = context.retyped
        objects = context.registered.values.map { o in
            (
                o,
                ObjectState(
                    id: o.objectID, isPlaceholder: o.isPlaceholder, values: o.values, links: o.links, pending: o.pending,
                    committed: o.committed, isInserted: o.isInsertedFlag, isDeleted: o.isDeletedFlag,
                    directLinks: o.directLinks, isInDirtyList: o.isInDirtyList, replacement: o.replacement,
                    retypedFrom: o.retypedFrom)
            )
        }
    }

    func restore(_ context: ObjectContext) {
        for object in context.registered.values where object.context === context { object.context = nil }
        for (o, s) in objects {
            o.objectID = s.id
            o.isPlaceholder = s.isPlaceholder
            o.values = s.values
            o.links = s.links
            o.pending = s.pending
            o.committed = s.committed
            o.isInsertedFlag = s.isInserted
            o.isDeletedFlag = s.isDeleted
            o.directLinks = s.directLinks
            o.isInDirtyList = s.isInDirtyList
            o.replacement = s.replacement
            o.retypedFrom = s.retypedFrom
            o.context = context
        }
        context.registered = registered
        context.identityMap = identityMap
        context.dirty = dirty
        context.pendingUnregistered = pendingUnregistered
        context.nextTemporaryKey = nextTemporaryKey
        context.retyped = retyped
        context.session = nil
    }
}
