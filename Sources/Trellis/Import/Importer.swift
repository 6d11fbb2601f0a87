/// The import engine behind ``ObjectContext/importObjects(from:entity:options:)``.
///
/// Per batch of elements:
/// 1. *prepare*: walk every element (nested objects and bare identifiers included),
///    apply dictionary transformers and entity mappers, coerce identity values, and
///    collect the identities per identity namespace;
/// 2. *fetch*: one `fetch(entity:identities:)` per namespace for identities not yet registered
///    (and, once, for objects registered before the import, refreshed from the store);
/// 3. *apply*: walk again in the same order, finding or creating each object and setting
///    its values and links. A stored object the fetch returned is compared with the JSON
///    first and becomes a ``ManagedObject`` only when something differs (``StoredObject``):
///    an unchanged object costs no registration, no change tracking and no write;
/// 4. *flush*: write the batch's change set into the open write session, then drop the
///    batch's objects from the context.
///
/// Paths are not built on the way: a stack of steps is kept and turned into a
/// ``JSONPath`` only for an error or a diagnostic.
final class Importer {
    let context: ObjectContext
    let session: any StoreSession
    let options: ImportOptions
    let root: EntityInfo
    let importEpoch: Int
    var schema: ModelSchema { context.schema }

    private var plans: [EntityPlan?]
    private var transformers: [String: JSONValueTransformer] = [:]

    // Batch state.
    @exclusivity(unchecked) private var elements: [ImportElement] = []
    @exclusivity(unchecked) private var prepared: [Prepared] = []
    @exclusivity(unchecked) private var cursor = 0
    /// Identities met in the batch, per identity namespace (entity number).
    @exclusivity(unchecked) private var requests: [Set<IdentityKey>]
    @exclusivity(unchecked) private var steps: [PathStep] = []
    @exclusivity(unchecked) private var elementIndex = 0
    private var batchNumber = 0
    @exclusivity(unchecked) private var touched: [ManagedObject] = []
    @exclusivity(unchecked) private var topLevel: [TopLevelObject] = []
    /// The stored objects fetched for the batch and not registered in the context.
    @exclusivity(unchecked) private var stored: [StoredObject] = []
    /// Identity → position in `stored`, in every identity namespace of each object.
    @exclusivity(unchecked) private var storedByIdentity: [NamespacedIdentity: Int] = [:]
    /// ``ObjectContext/registrationCount`` when `stored` was filled: while it is unchanged,
    /// no stored object can have been registered.
    @exclusivity(unchecked) private var storedRegistrationCount = 0
    /// Stored objects found unchanged and left unregistered, for the report.
    @exclusivity(unchecked) private var unchangedStored: [Int] = []
    /// The last JSON of each nested object without mapped relationships met in the batch.
    @exclusivity(unchecked) private var leaves = LeafObjects()
    /// By position in `prepared`: the object a leaf's first occurrence resolved to (phase 3).
    @exclusivity(unchecked) private var resolvedLeaves: [ObjectID?] = []

    // Whole-import state.
    @exclusivity(unchecked) var report = ImportReport()
    /// Per root entity number: primary key → 0 inserted, 1 updated, 2 unchanged.
    @exclusivity(unchecked) private var status: [StatusTable]
    @exclusivity(unchecked) private var importedIDs = Set<ObjectID>()
    /// Objects registered before the import that it has read again from the store.
    @exclusivity(unchecked) private var rereadIDs = Set<ObjectID>()
    private var scopeCandidates: [ObjectID]?
    /// The inverse changes phase 3 leaves unrecorded (``InverseBookkeeping``).
    private lazy var unreadInverses = InverseBookkeeping(schema: schema, epoch: importEpoch)
    private var diagnosticCount = 0

    init(context: ObjectContext, session: any StoreSession, root: EntityInfo, options: ImportOptions, epoch: Int) {
        self.context = context
        self.session = session
        self.root = root
        self.options = options
        self.importEpoch = epoch
        self.plans = Array(repeating: nil, count: context.schema.entities.count)
        self.requests = Array(repeating: [], count: context.schema.entities.count)
        self.status = Array(repeating: StatusTable(), count: context.schema.entities.count)
        report.isDryRun = options.dryRun
    }

    // MARK: - Driver

    func run<Source: ImportSource>(_ source: inout Source) throws -> ImportReport {
        if let keyAttribute = options.keyAttribute {
            guard let i = root.entity.attributeIndex(of: keyAttribute),
                  root.entity.attributeMappings.contains(where: { $0.index == i }) else {
                throw ImportError(.invalidOption, path: .root, entity: root.name, property: keyAttribute, value: nil,
                                  message: "keyAttribute '\(keyAttribute)' is not a mapped attribute of \(root.name)")
            }
        }
        try captureScope()
        let batchSize = max(1, options.batchSize)
        elements.reserveCapacity(min(batchSize, 65_536))
        while true {
            elements.removeAll(keepingCapacity: true)
            while elements.count < batchSize, let element = try source.nextElement() { elements.append(element) }
            if elements.isEmpty { break }
            report.elementCount += elements.count
            try runBatch()
            if elements.count < batchSize { break }
        }
        try deleteMissing()
        return report
    }

    private func runBatch() throws {
        batchNumber += 1
        prepared.removeAll(keepingCapacity: true)
        for namespace in requests.indices where !requests[namespace].isEmpty { requests[namespace].removeAll(keepingCapacity: true) }
        touched.removeAll(keepingCapacity: true)
        topLevel.removeAll(keepingCapacity: true)
        stored.removeAll(keepingCapacity: true)
        storedByIdentity.removeAll(keepingCapacity: true)
        unchangedStored.removeAll(keepingCapacity: true)
        leaves.removeAll()

        // 1. Prepare.
        for (i, element) in elements.enumerated() {
            elementIndex = i
            try prepare(element.value, root, key: element.key)
        }
        // 2. Fetch, once per identity namespace: identities not registered, and (once per
        //    import) those of objects registered before it, which another connection may
        //    have changed or deleted since they were read.
        for (namespace, keys) in requests.enumerated() where !keys.isEmpty {
            var missing: [[AttributeValue]] = []
            var reread: [ManagedObject] = []
            missing.reserveCapacity(keys.count)
            for key in keys {
                if let object = context.identityMap[NamespacedIdentity(namespace: namespace, key: key)] {
                    guard object.epoch < importEpoch, !object.isInsertedFlag, !object.isDeletedFlag,
                          rereadIDs.insert(object.objectID).inserted else { continue }
                    reread.append(object)
                }
                missing.append(key.values)
            }
            if missing.isEmpty { continue }
            var found = Set<ObjectID>()
            // Objects registered before the import are refreshed from complete rows; the
            // import's own lookups may leave unread inverse to-manys empty (`fetchForImport`).
            let name = schema.entities[namespace].name
            let snapshots = reread.isEmpty ? try session.fetchForImport(entity: name, identities: missing)
                                           : try session.fetch(entity: name, identities: missing)
            // The top-level entity's objects stay unregistered until they differ; nested
            // destinations are registered, for the inverses a new source maintains on them.
            let keepsStored = namespace == root.namespace
            for snapshot in snapshots {
                if let existing = context.registered[snapshot.id] {
                    if existing.epoch < importEpoch { context.refresh(existing, from: snapshot) }
                } else if keepsStored {
                    try keepStored(snapshot)
                } else {
                    _ = try context.register(snapshot)
                }
                if !reread.isEmpty { found.insert(snapshot.id) }
            }
            // No stored object has that identity any more: the payload's object is a new one.
            for object in reread where !found.contains(object.objectID) { context.unindexIdentity(object) }
        }
        // 3. Apply.
        storedRegistrationCount = context.registrationCount
        context.unreadInverses = unreadInverses
        defer { context.unreadInverses = nil }
        cursor = 0
        resolvedLeaves = Array(repeating: nil, count: prepared.count)
        for i in elements.indices {
            elementIndex = i
            topLevel.append(try applyTopLevel())
        }
        // 4. Flush.
        try flush(countingTouched: true)
    }

    /// Writes the context's changes into the session, records the report and drops the
    /// objects registered by the import.
    private func flush(countingTouched: Bool) throws {
        // A stored object found unchanged may have been faulted in since, and changed
        // through an inverse (a one-to-one partner moving): it is reported from its object.
        for s in unchangedStored {
            if let object = registered(stored[s].snapshot.id), object.mark != batchNumber {
                object.mark = batchNumber
                object.flushWrote = false
                touched.append(object)
            }
        }
        try context.validateRequiredValues(registeredBefore: importEpoch)
        let changes = context.makeChangeSet()
        var deleted: [ManagedObject] = []
        for object in context.dirty where object.isDeletedFlag && object.flushWrote { deleted.append(object) }
        var codes: [UInt8] = []
        codes.reserveCapacity(touched.count)
        for object in touched { codes.append(object.isInsertedFlag ? 0 : (object.flushWrote ? 1 : 2)) }
        let temporaryIDs = options.dryRun ? topLevel.map(\.objectID) : []
        // The batch's objects are dropped after the write: let go of their values first, so
        // the store's arrays they shared (a popular object's to-many) are not copied on write.
        context.releaseStorage(ofObjectsRegisteredSince: importEpoch)
        let mapping = changes.isEmpty ? [:] : try session.apply(changes)
        context.didSave(mapping, dropEpoch: importEpoch)
        // Object IDs are permanent from here on.
        for (object, code) in zip(touched, codes) {
            record(code, object.info, object.objectID.primaryKey)
        }
        for s in unchangedStored { record(2, stored[s].info, stored[s].snapshot.id.primaryKey) }
        for object in deleted {
            report.counts[object.entity.name, default: .init()].deleted += 1
            report.deletedObjectIDs.append(object.objectID)
        }
        // (Top-level objects are all of the imported entity's hierarchy, so of its root's table.)
        for object in topLevel { status[root.rootNumber].markTopLevel(object.objectID.primaryKey) }
        if options.reportsObjectIDs { report.objectIDs += options.dryRun ? temporaryIDs : topLevel.map(\.objectID) }
        if options.deleteMissing != nil {
            for object in topLevel { importedIDs.insert(object.objectID) }
        }
    }

    /// Counts the object with primary key `key` once per import, with its lowest code
    /// (0 inserted, 1 updated, 2 unchanged) over the batches and occurrences that touched it.
    private func record(_ code: UInt8, _ info: EntityInfo, _ key: Int64) {
        let rootNumber = info.rootNumber
        if let previous = status[rootNumber].code(of: key) {
            if code < previous {
                status[rootNumber].set(code, for: key)
                count(info.name, previous, -1)
                count(info.name, code, 1)
            }
        } else {
            status[rootNumber].set(code, for: key)
            count(info.name, code, 1)
        }
    }

    private func count(_ entity: String, _ code: UInt8, _ delta: Int) {
        switch code {
        case 0: report.counts[entity, default: .init()].inserted += delta
        case 1: report.counts[entity, default: .init()].updated += delta
        default: report.counts[entity, default: .init()].unchanged += delta
        }
    }

    // MARK: - Deletion scope

    private func captureScope() throws {
        guard let scope = options.deleteMissing, case .relationship(let parent, let name) = scope.kind else { return }
        guard let snapshot = try session.fetch(ids: [parent]).first, let info = schema.info(named: parent.entityName) else {
            throw ImportError(.invalidOption, path: .root, entity: parent.entityName, property: name, value: nil,
                              message: "the deletion scope's parent \(parent) does not exist")
        }
        guard let slot = info.entity.relationshipIndex(of: name),
              schema.entities[info.relationships[slot].destinationNumber].includes(root.number)
                || root.includes(info.relationships[slot].destinationNumber) else {
            throw ImportError(.invalidOption, path: .root, entity: info.name, property: name, value: nil,
                              message: "\(info.name) has no relationship '\(name)' to \(root.name)")
        }
        scopeCandidates = snapshot.relationships[slot]
    }

    private func deleteMissing() throws {
        guard let scope = options.deleteMissing else { return }
        let candidates: [ObjectID]
        switch scope.kind {
        case .allObjects:
            candidates = try session.fetch(entity: root.name, matching: nil).map(\.id)
        case .matching(let predicate):
            if let name = predicate.unknownName(in: root.entity) {
                throw ImportError(.invalidOption, path: .root, entity: root.name, property: name, value: nil,
                                  message: "the deletion scope's predicate uses '\(name)', which \(root.name) lacks")
            }
            candidates = try session.fetch(entity: root.name, matching: predicate).map(\.id)
        case .relationship:
            candidates = scopeCandidates ?? []
        }
        let doomed = candidates.filter { !importedIDs.contains($0) }.sorted()
        if scope.dryRun {
            report.deletedObjectIDs = doomed
            return
        }
        touched.removeAll()
        topLevel.removeAll()
        unchangedStored.removeAll()
        for id in doomed {
            if let object = try context.object(with: id) { try context.delete(object) }
        }
        try flush(countingTouched: false)
        report.deletedObjectIDs.sort()
    }

    // MARK: - Phase 1: prepare

    private func prepare(_ value: JSONValue, _ requested: EntityInfo, key: String?) throws {
        switch value {
        case .object(var object):
            let plan = try self.plan(requested)
            if let transformer = try dictionaryTransformer(plan) {
                do {
                    object = try transformer.transform(object)
                } catch {
                    throw fail(.transformFailed, nil, requested.name, nil, value,
                               "dictionary transformer '\(transformer.name)' of \(requested.name) failed: \(error)")
                }
            }
            if let key, let name = options.keyAttribute, requested === root,
               let mapping = plan.attributes.first(where: { requested.entity.attributes[$0.index].name == name }) {
                do {
                    try mapping.keyPath.set(.string(key), in: &object)
                } catch {
                    throw fail(.invalidOption, nil, requested.name, name, .string(key), "cannot store the key: \(error)")
                }
            }
            var walk = requested
            if let mapper = try entityMapper(plan) {
                let chosen: String?
                do {
                    chosen = try mapper.map(object)
                } catch {
                    throw fail(.transformFailed, nil, requested.name, nil, value, "entity mapper '\(mapper.name)' failed: \(error)")
                }
                if let chosen {
                    guard let info = schema.info(named: chosen), requested.includes(info.number) else {
                        throw fail(.invalidEntity, nil, requested.name, nil, value,
                                   "entity mapper '\(mapper.name)' chose '\(chosen)', which is not \(requested.name) or one of its sub-entities")
                    }
                    walk = info
                } else if requested.entity.isAbstract {
                    throw fail(.abstractEntity, nil, requested.name, nil, value,
                               "\(requested.name) is abstract, and its entity mapper '\(mapper.name)' chose no sub-entity for this object")
                }
            }
            let walkPlan = walk === requested ? plan : try self.plan(walk)
            var identity: IdentityKey?
            var leaf = Prepared.notALeaf
            if requested.namespace >= 0, !plan.identity.isEmpty {
                identity = try extractIdentity(plan, object, requested)
                if let identity {
                    if !steps.isEmpty, walkPlan.relationships.isEmpty {
                        leaf = leaves.occurrence(of: object, NamespacedIdentity(namespace: requested.namespace, key: identity),
                                                 requested: requested, walk: walk, at: prepared.count)
                        if leaf >= 0 {
                            prepared.append(Prepared(object: object, identity: identity, walk: walk, leaf: leaf))
                            return
                        }
                    }
                    requests[requested.namespace].insert(identity)
                }
            }
            prepared.append(Prepared(object: object, identity: identity, walk: walk, leaf: leaf))
            for r in walkPlan.relationships {
                guard case .present(let v) = r.lookup(in: object) else { continue }
                steps.append(.keyPath(r.keyPath))
                if !r.isToMany {
                    switch v {
                    case .object: try prepare(v, r.destination, key: nil)
                    case .string, .number: try prepareBare(v, r.destination)
                    case .array:
                        throw fail(.arrayForToOne, nil, walk.name, r.name, v,
                                   "\(walk.name).\(r.name) is a to-one relationship; found an array \(jsonSnippet(v))")
                    default:
                        throw fail(.notAnObject, nil, walk.name, r.name, v,
                                   "\(walk.name).\(r.name) takes an object or an identifier; found \(jsonSnippet(v))")
                    }
                } else {
                    guard case .array(let items) = v else {
                        throw fail(.notAnArray, nil, walk.name, r.name, v,
                                   "\(walk.name).\(r.name) is a to-many relationship; expected an array or null, found \(jsonSnippet(v))")
                    }
                    for (i, item) in items.enumerated() {
                        steps.append(.index(i))
                        switch item {
                        case .object: try prepare(item, r.destination, key: nil)
                        case .string, .number: try prepareBare(item, r.destination)
                        default:
                            throw fail(.notAnObject, nil, walk.name, r.name, item,
                                       "\(walk.name).\(r.name) takes objects or identifiers; found \(jsonSnippet(item))")
                        }
                        steps.removeLast()
                    }
                }
                steps.removeLast()
            }
        case .string, .number:
            try prepareBare(value, requested)
        default:
            throw fail(.notAnObject, nil, requested.name, nil, value,
                       "expected \(withIndefiniteArticle(requested.name)) object or identifier, found \(jsonSnippet(value))")
        }
    }

    private func prepareBare(_ value: JSONValue, _ requested: EntityInfo) throws {
        let plan = try self.plan(requested)
        guard plan.identity.count == 1, requested.entity.identityAttributeIndexes.count == 1 else {
            let count = requested.entity.identityAttributeIndexes.count
            throw fail(.noSingleIdentity, nil, requested.name, nil, value,
                       "\(jsonSnippet(value)) is a bare identifier, but \(requested.name) has "
                           + (count == 1 ? "an unmapped identity attribute" : "\(count) identity attributes") + "; use an object")
        }
        let a = plan.identity[0]
        guard let converted = try convert(value, a, requested.entity, keyPath: nil) else {
            throw fail(.invalidValue, nil, requested.name, a.name, value, "an identifier cannot be null")
        }
        let identity = IdentityKey.single(converted)
        requests[requested.namespace].insert(identity)
        prepared.append(Prepared(object: nil, identity: identity, walk: requested))
    }

    private func extractIdentity(_ plan: EntityPlan, _ object: JSONObject, _ entity: EntityInfo) throws -> IdentityKey? {
        if plan.identity.count == 1 {
            let a = plan.identity[0]
            guard case .present(let v) = a.lookup(in: object),
                  let value = try convert(v, a, entity.entity, keyPath: a.keyPath) else { return nil }
            return .single(value)
        }
        var values: [AttributeValue] = []
        values.reserveCapacity(plan.identity.count)
        for a in plan.identity {
            guard case .present(let v) = a.lookup(in: object),
                  let value = try convert(v, a, entity.entity, keyPath: a.keyPath) else { return nil }
            values.append(value)
        }
        return .composite(values)
    }

    // MARK: - Phase 3: apply

    /// Applies a top-level element; a new object is kept to read its permanent ID after the flush.
    private func applyTopLevel() throws -> TopLevelObject {
        let id = try apply(root)
        if id.isTemporary, let object = context.registered[id] { return .new(object) }
        return .stored(id)
    }

    /// Finds or creates the object of the next prepared element and sets its values and links.
    /// Returns its ID (temporary for a new object until the batch is flushed).
    private func apply(_ requested: EntityInfo) throws -> ObjectID {
        let position = cursor
        let p = prepared[position]
        cursor += 1
        if p.leaf >= 0, let earlier = resolvedLeaves[p.leaf] {
            // The same nested object, without relationships, was applied earlier in this batch.
            return earlier
        }
        guard let json = p.object else { return try resolveBare(p, requested) }
        let object: ManagedObject
        var isNew = false
        if let identity = p.identity, let existing = context.registeredObject(inNamespaceOf: requested, identity) {
            var duplicate = existing.mark == batchNumber
            if !stored.isEmpty, let s = storedByIdentity[NamespacedIdentity(namespace: requested.namespace, key: identity)] {
                // Met earlier as a stored object, and registered since (an inverse faulted it in).
                duplicate = duplicate || stored[s].isMet
                stored[s].isMet = true
            }
            try check(existing.info, requested, p, identity, json, duplicate: duplicate, existing.objectID)
            object = existing
        } else if let identity = p.identity, !stored.isEmpty,
                  let s = storedByIdentity[NamespacedIdentity(namespace: requested.namespace, key: identity)] {
            let info = stored[s].info
            try check(info, requested, p, identity, json, duplicate: stored[s].isMet, stored[s].snapshot.id)
            stored[s].isMet = true
            let plan = try self.plan(info)
            guard try storedAttributesMatch(s, plan, json, p, requested) else {
                // Something differs: the object is registered and updated as any other.
                return try applyValues(to: try materialize(s), plan, isNew: false, p, json, requested, position)
            }
            return try applyLinks(toStored: s, p, json, position)
        } else {
            guard !p.walk.entity.isAbstract else {
                throw fail(.abstractEntity, nil, p.walk.name, nil, .object(json),
                           "\(p.walk.name) is abstract and has no entity mapper choosing a sub-entity for this object")
            }
            // Without an identity in the JSON, identity attributes get no default (the object
            // would take over the stored object that has the default as its identity).
            object = context.createObject(p.walk, isPlaceholder: false,
                                          values: p.identity == nil ? p.walk.defaultValuesWithoutIdentity : nil, indexingIdentity: false)
            isNew = true
        }
        return try applyValues(to: object, try plan(object.info), isNew: isNew, p, json, requested, position)
    }

    /// The checks on an object found by identity (registered, or stored): its entity must be
    /// the requested one or a sub-entity (else `.identityConflict`), and the entity mapper's
    /// choice must include it; a top-level object met twice in a batch is diagnosed.
    private func check(_ found: EntityInfo, _ requested: EntityInfo, _ p: Prepared, _ identity: IdentityKey, _ json: JSONObject,
                       duplicate: Bool, _ id: ObjectID) throws {
        guard requested.includes(found.number) else {
            throw identityConflict(id, found, requested, identity, .object(json))
        }
        guard p.walk.includes(found.number) else {
            throw fail(.invalidEntity, nil, requested.name, nil, .object(json),
                       "\(found.name) \(identity) exists, but the entity mapper chose \(p.walk.name) for it, and an object cannot change its entity")
        }
        // Met in this batch, or a top-level element of an earlier one.
        if requested === root, steps.isEmpty,
           duplicate || (!id.isTemporary && status[root.rootNumber].isTopLevel(id.primaryKey)) {
            diagnose(.duplicateIdentity, "\(requested.name) \(identity) appears more than once; merged, last value wins")
        }
    }

    /// Sets the JSON's attributes and relationships on a registered (or new) object.
    private func applyValues(to object: ManagedObject, _ plan: EntityPlan, isNew: Bool, _ p: Prepared, _ json: JSONObject,
                             _ requested: EntityInfo, _ position: Int) throws -> ObjectID {
        if p.leaf == Prepared.firstLeaf { resolvedLeaves[position] = object.objectID }
        touch(object)
        var values = object.values
        var changed = false
        let completes = object.isPlaceholder
        // A placeholder becomes a full object now: like a new object, it takes the model's
        // defaults for the attributes the JSON leaves out (not for those it sets to null).
        var givenByJSON: [Bool] = completes ? Array(repeating: false, count: values.count) : []
        for a in plan.attributes {
            guard let new = try incomingValue(a, json, object.info, p, requested) else { continue }
            if completes { givenByJSON[a.index] = true }
            if new == nil, !a.isOptional, !object.isPlaceholder, values[a.index] != nil {
                throw fail(.missingRequiredValue, a.keyPath, object.entity.name, a.name, .null,
                           "\(object.entity.name).\(a.name) is required; null cannot clear it")
            }
            if values[a.index] != new {
                values[a.index] = new
                changed = true
            }
        }
        if completes {
            for (i, value) in object.info.defaultValues.enumerated() where value != nil && values[i] == nil && !givenByJSON[i] {
                values[i] = value
                changed = true
            }
        }
        if changed { object.values = values }
        if completes { object.isPlaceholder = false }
        if changed || completes { context.markDirty(object) }
        if isNew { context.indexIdentity(object) }

        let walkPlan = p.walk === object.info ? plan : try self.plan(p.walk)
        for r in walkPlan.relationships {
            guard let links = try destinations(r, json) else { continue }
            try setLinks(object, r, links)
        }
        if isNew || completes {
            for (i, attribute) in object.entity.attributes.enumerated() where !attribute.isOptional && object.values[i] == nil {
                let keyPath = plan.attributes.first(where: { $0.index == i })?.keyPath
                throw fail(.missingRequiredValue, keyPath, object.entity.name, attribute.name, nil,
                           "\(object.entity.name).\(attribute.name) is required" + (keyPath.map { "; the object has no value at '\($0)'" } ?? ""))
            }
        }
        return object.objectID
    }

    /// What the JSON sets attribute `a` of an object of `info` to: nil leaves it as it is (a
    /// missing key, or null under `nullPolicy == .ignore`); `.some(nil)` clears it (null);
    /// otherwise the identity value prepared in phase 1 (an attribute of the identity looked
    /// up) or the JSON value converted.
    @inline(__always)
    private func incomingValue(_ a: AttributePlan, _ json: JSONObject, _ info: EntityInfo, _ p: Prepared,
                               _ requested: EntityInfo) throws -> AttributeValue?? {
        switch a.lookup(in: json) {
        case .missing:
            return nil
        case .null:
            return options.nullPolicy == .ignore ? nil : .some(nil)
        case .present(let v):
            if a.identityPosition >= 0, let identity = p.identity, requested.namespace == info.namespace {
                switch identity {
                case .single(let value): return value
                case .composite(let values): return values[a.identityPosition]
                }
            }
            return try convert(v, a, info.entity, keyPath: a.keyPath)
        }
    }

    /// What an element sets a relationship to: `ids` in place of the current links, or after
    /// them (`appends`: an appending to-many given an array).
    struct NewLinks {
        let ids: [ObjectID]
        let appends: Bool
    }

    /// The relationship's new links from the element's JSON, applying the nested objects
    /// (phase 3 order); nil when it leaves them as they are (key missing, or null under
    /// ``NullPolicy/ignore``). A `null` empties even an appending to-many (``NullPolicy/clear``).
    private func destinations(_ r: RelationshipPlan, _ json: JSONObject) throws -> NewLinks? {
        switch r.lookup(in: json) {
        case .missing:
            return nil
        case .null:
            return options.nullPolicy == .ignore ? nil : NewLinks(ids: [], appends: false)
        case .present(let v):
            steps.append(.keyPath(r.keyPath))
            defer { steps.removeLast() }
            if !r.isToMany { return NewLinks(ids: [try apply(r.destination)], appends: false) }
            guard case .array(let items) = v else { return nil }  // phase 1 has thrown `.notAnArray`
            var ids: [ObjectID] = []
            ids.reserveCapacity(items.count)
            for i in items.indices {
                steps.append(.index(i))
                ids.append(try apply(r.destination))
                steps.removeLast()
            }
            return NewLinks(ids: unique(ids), appends: r.append)
        }
    }

    /// Sets a relationship of a registered object to the new links (after the current ones,
    /// without repeats, when they append).
    private func setLinks(_ object: ManagedObject, _ r: RelationshipPlan, _ links: NewLinks) throws {
        try context.setLinksCore(object, r.slot, links.appends ? appending(links.ids, to: context.links(of: object, r.slot)) : links.ids)
    }

    /// `current` followed by the IDs of `ids` it lacks (the `append` merge policy).
    private func appending(_ ids: [ObjectID], to current: [ObjectID]) -> [ObjectID] {
        if current.isEmpty { return ids }
        let present = Set(current)
        return current + ids.filter { !present.contains($0) }
    }

    private func touch(_ object: ManagedObject) {
        if object.mark != batchNumber {
            object.mark = batchNumber
            object.flushWrote = false
            touched.append(object)
        }
    }

    // MARK: - Stored objects

    /// Keeps a fetched snapshot for phase 3 without registering it, findable by its
    /// identity in each of its entity's identity namespaces.
    private func keepStored(_ snapshot: ObjectSnapshot) throws {
        guard let info = schema.info(named: snapshot.id.entityName) else {
            throw StoreError(.unknownObject, message: "the store returned an object of unknown entity '\(snapshot.id.entityName)'")
        }
        let position = stored.count
        stored.append(StoredObject(snapshot: snapshot, info: info))
        for namespace in info.lineageNamespaces {
            if let key = schema.entities[namespace].identity(of: snapshot.attributes) {
                storedByIdentity[NamespacedIdentity(namespace: namespace, key: key)] = position
            }
        }
    }

    /// The stored object `s` as a registered object (registered now, unless an inverse or
    /// a nested occurrence registered it already).
    private func materialize(_ s: Int) throws -> ManagedObject {
        try context.register(stored[s].snapshot)
    }

    /// The registered object with stored object `id`; no lookup while nothing was
    /// registered since the fetch (a re-import of unchanged objects registers nothing).
    @inline(__always)
    private func registered(_ id: ObjectID) -> ManagedObject? {
        context.registrationCount == storedRegistrationCount ? nil : context.registered[id]
    }

    /// `true` when stored object `id` may differ from its snapshot: registered since the fetch
    /// (by a nested occurrence or an inverse faulting it in), or with inverse changes waiting.
    @inline(__always)
    private func isAheadOfSnapshot(_ id: ObjectID) -> Bool {
        registered(id) != nil || (!context.pendingUnregistered.isEmpty && context.pendingUnregistered[id] != nil)
    }

    /// `true` when setting the JSON's attributes on stored object `s` would change nothing
    /// (the same test as ``applyValues(to:_:isNew:_:_:_:_:)``); `false` also for a
    /// placeholder (it completes) and for an object with inverse changes waiting.
    private func storedAttributesMatch(_ s: Int, _ plan: EntityPlan, _ json: JSONObject, _ p: Prepared,
                                       _ requested: EntityInfo) throws -> Bool {
        let id = stored[s].snapshot.id
        if stored[s].snapshot.isPlaceholder || isAheadOfSnapshot(id) { return false }
        let info = stored[s].info
        for a in plan.attributes {
            guard let new = try incomingValue(a, json, info, p, requested) else { continue }
            if stored[s].snapshot.attributes[a.index] != new { return false }
        }
        return true
    }

    /// Applies the relationships of stored object `s`, whose attributes match: the nested
    /// objects are applied, and the object is registered only when a relationship changes
    /// (the same test as ``ObjectContext/setLinksCore(_:_:_:)``). Otherwise it is recorded
    /// as unchanged and stays unregistered.
    private func applyLinks(toStored s: Int, _ p: Prepared, _ json: JSONObject, _ position: Int) throws -> ObjectID {
        let id = stored[s].snapshot.id
        if p.leaf == Prepared.firstLeaf { resolvedLeaves[position] = id }
        let walkPlan = try plan(p.walk)
        var object: ManagedObject?
        for r in walkPlan.relationships {
            guard let links = try destinations(r, json) else { continue }
            if object == nil {
                // Registered meanwhile by a nested occurrence, or with inverse changes waiting
                // (a member moving to another team): its links are set as for any object.
                // Otherwise only a link that differs from the snapshot registers it.
                if !isAheadOfSnapshot(id) {
                    let current = stored[s].snapshot.relationships[r.slot]
                    if context.linksEqual(current, links.appends ? appending(links.ids, to: current) : links.ids,
                                          unorderedToMany: r.isToMany && !stored[s].info.relationships[r.slot].isOrdered) {
                        continue
                    }
                }
                let materialized = try materialize(s)
                touch(materialized)
                object = materialized
            }
            if let object { try setLinks(object, r, links) }
        }
        if object == nil { unchangedStored.append(s) }
        return id
    }

    private func resolveBare(_ p: Prepared, _ requested: EntityInfo) throws -> ObjectID {
        guard let identity = p.identity else {
            throw fail(.noSingleIdentity, nil, requested.name, nil, nil, "an identifier without a value")
        }
        if let existing = context.registeredObject(inNamespaceOf: requested, identity) {
            guard requested.includes(existing.info.number) else {
                throw identityConflict(existing.objectID, existing.info, requested, identity, .string(identity.description))
            }
            return existing.objectID
        }
        if !stored.isEmpty, let s = storedByIdentity[NamespacedIdentity(namespace: requested.namespace, key: identity)] {
            guard requested.includes(stored[s].info.number) else {
                throw identityConflict(stored[s].snapshot.id, stored[s].info, requested, identity, .string(identity.description))
            }
            return stored[s].snapshot.id
        }
        guard !requested.entity.isAbstract else {
            throw fail(.abstractEntity, nil, requested.name, nil, identity.values.first.map { _ in .string(identity.description) },
                       "cannot create a placeholder for \(identity): \(requested.name) is abstract")
        }
        var values = [AttributeValue?](repeating: nil, count: requested.entity.attributes.count)
        for (position, index) in requested.entity.identityAttributeIndexes.enumerated() {
            values[index] = identity.values[position]
        }
        let object = context.createObject(requested, isPlaceholder: true, values: values)
        object.mark = batchNumber
        touched.append(object)
        diagnose(.placeholderCreated, "no \(requested.name) with identity \(identity): created a placeholder")
        return object.objectID
    }

    /// `.identityConflict`: `existing` (say a Dog) holds the identity a `requested` object
    /// (a Cat) has, in the namespace of the entity declaring it (Animal). Creating the Cat
    /// would make the store's upsert overwrite the Dog's row.
    private func identityConflict(_ existing: ObjectID, _ existingInfo: EntityInfo, _ requested: EntityInfo, _ identity: IdentityKey,
                                  _ value: JSONValue?) -> ImportError {
        let declaring = schema.entities[requested.namespace].name
        return fail(.identityConflict, nil, requested.name, nil, value,
                    "\(requested.name) \(identity) has the identity of \(existingInfo.name) \(identity): "
                        + "identities are unique across \(declaring) and its sub-entities, and an object cannot change its entity")
    }

    /// `ids` without repeats, first occurrence kept.
    private func unique(_ ids: [ObjectID]) -> [ObjectID] {
        if ids.count < 2 { return ids }
        if ids.count <= 16 {
            var out: [ObjectID] = []
            out.reserveCapacity(ids.count)
            for id in ids where !out.contains(id) { out.append(id) }
            return out
        }
        var seen = Set<ObjectID>(minimumCapacity: ids.count)
        return ids.filter { seen.insert($0).inserted }
    }

    // MARK: - Values

    private func convert(_ value: JSONValue, _ a: AttributePlan, _ entity: ResolvedEntity, keyPath: JSONKeyPath?) throws -> AttributeValue? {
        guard let name = a.transformerName else {
            do {
                return try coerce(value, to: a.type)
            } catch let failure as CoercionFailure {
                throw fail(.invalidValue, keyPath, entity.name, a.name, value,
                           "cannot store \(jsonSnippet(value)) in \(entity.name).\(a.name) (\(a.type)): \(failure.message)")
            }
        }
        let transformer = try valueTransformer(name, entity: entity.name, attribute: a.name, keyPath: keyPath)
        let result: AttributeValue?
        do {
            result = try transformer.transformedValue(value)
        } catch let error as TransformError {
            throw fail(.invalidValue, keyPath, entity.name, a.name, value,
                       "cannot store \(jsonSnippet(value)) in \(entity.name).\(a.name) (\(a.type)): value transformer '\(name)': \(error.message)")
        }
        if let result, !ModelResolver.value(result, fits: a.type) {
            throw fail(.invalidValue, keyPath, entity.name, a.name, value,
                       "value transformer '\(name)' turned \(jsonSnippet(value)) into \(result), which is not \(withIndefiniteArticle(a.type.description)) for \(entity.name).\(a.name)")
        }
        return result
    }

    private func valueTransformer(_ name: String, entity: String, attribute: String, keyPath: JSONKeyPath?) throws -> JSONValueTransformer {
        if let t = transformers[name] { return t }
        do {
            let t = try context.bindings.transformers.transformer(named: name)
            transformers[name] = t
            return t
        } catch {
            let names = context.bindings.transformers.names
            throw fail(.unknownName, keyPath, entity, attribute, nil,
                       "\(entity).\(attribute) names value transformer '\(name)', which is not registered; registered: "
                           + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
    }

    private func dictionaryTransformer(_ plan: EntityPlan) throws -> DictionaryTransformer? {
        guard let name = plan.info.entity.dictionaryTransformerName else { return nil }
        if let t = context.bindings.dictionaryTransformers[name] { return t }
        let names = context.bindings.dictionaryTransformers.keys.sorted()
        throw fail(.unknownName, nil, plan.info.name, nil, nil,
                   "\(plan.info.name) names dictionary transformer '\(name)', which is not registered; registered: "
                       + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    }

    private func entityMapper(_ plan: EntityPlan) throws -> EntityMapper? {
        guard let name = plan.info.entity.entityMapperName else { return nil }
        if let m = context.bindings.entityMappers[name] { return m }
        let names = context.bindings.entityMappers.keys.sorted()
        throw fail(.unknownName, nil, plan.info.name, nil, nil,
                   "\(plan.info.name) names entity mapper '\(name)', which is not registered; registered: "
                       + (names.isEmpty ? "none" : names.joined(separator: ", ")))
    }

    // MARK: - Plans, paths, diagnostics

    private func plan(_ info: EntityInfo) throws -> EntityPlan {
        if let plan = plans[info.number] { return plan }
        let plan = EntityPlan(info: info, schema: schema, defaultPolicy: options.toManyPolicy)
        plans[info.number] = plan
        return plan
    }

    private func currentPath() -> JSONPath { currentLocation().path }

    /// The path of the value being imported and, when known, that value in the element's
    /// JSON (so that key path components reading arrays show as indexes: `$[0].items[1]`).
    private func currentLocation() -> (path: JSONPath, value: JSONValue?) {
        guard elements.indices.contains(elementIndex) else { return (.root, nil) }
        var path = elements[elementIndex].path
        var node: JSONValue? = elements[elementIndex].value
        for step in steps {
            switch step {
            case .keyPath(let k):
                path = path.appending(k, readingFrom: node)
                if let current = node, case .present(let next) = k.lookup(in: current) { node = next } else { node = nil }
            case .index(let i):
                path = path.appending(index: i)
                if case .array(let array)? = node, i < array.count { node = array[i] } else { node = nil }
            }
        }
        return (path, node)
    }

    private func fail(_ code: ImportError.Code, _ keyPath: JSONKeyPath?, _ entity: String, _ property: String?,
                      _ value: JSONValue?, _ message: String) -> ImportError {
        var (path, node) = currentLocation()
        if let keyPath { path = path.appending(keyPath, readingFrom: node) }
        return ImportError(code, path: path, entity: entity, property: property, value: value, message: message)
    }

    private func diagnose(_ code: ImportDiagnostic.Code, _ message: String) {
        diagnosticCount += 1
        if diagnosticCount <= 100 {
            report.diagnostics.append(ImportDiagnostic(code: code, path: currentPath(), message: message))
        } else if diagnosticCount == 101 {
            report.diagnostics.append(ImportDiagnostic(code: .truncated, path: nil, message: "further diagnostics left out"))
        }
    }
}

/// A stored object fetched for a batch and not registered (yet): phase 3 compares the JSON
/// with its snapshot and registers it only when something differs.
struct StoredObject {
    let snapshot: ObjectSnapshot
    let info: EntityInfo
    /// An earlier element of the batch had the same identity (for `.duplicateIdentity`).
    var isMet = false
}

/// A top-level element's object: a new one (its permanent ID is known after the flush), or
/// any other by its ID.
enum TopLevelObject {
    case new(ManagedObject)
    case stored(ObjectID)

    var objectID: ObjectID {
        switch self {
        case .new(let object): object.objectID
        case .stored(let id): id
        }
    }
}

/// One JSON object (or bare identifier) met in phase 1, consumed in the same order in phase 3.
struct Prepared {
    /// The object after the dictionary transformer; nil for a bare identifier.
    var object: JSONObject?
    var identity: IdentityKey?
    /// The entity whose relationships are walked (the mapper's choice, else the requested one).
    var walk: EntityInfo
    /// For a nested object without mapped relationships (``LeafObjects``): the position in
    /// the batch of an earlier identical occurrence, whose object it resolves to without
    /// being applied again; ``firstLeaf`` for an occurrence applied in full that later ones
    /// may repeat; ``notALeaf`` otherwise.
    var leaf: Int = Prepared.notALeaf

    static let notALeaf = -2
    static let firstLeaf = -1
}

enum PathStep {
    case keyPath(JSONKeyPath)
    case index(Int)
}

/// The mapped properties of one entity, resolved once per import.
final class EntityPlan {
    let info: EntityInfo
    let attributes: [AttributePlan]
    /// The identity attributes, in identity order (only when all are mapped).
    let identity: [AttributePlan]
    let relationships: [RelationshipPlan]

    init(info: EntityInfo, schema: ModelSchema, defaultPolicy: ToManyMergePolicy) {
        self.info = info
        let entity = info.entity
        let identityIndexes = entity.identityAttributeIndexes
        attributes = entity.attributeMappings.map { m in
            let a = entity.attributes[m.index]
            return AttributePlan(index: m.index, keyPath: m.keyPath, type: a.type, name: a.name,
                                 transformerName: a.transformerName, identityPosition: identityIndexes.firstIndex(of: m.index) ?? -1,
                                 isOptional: a.isOptional)
        }
        let identity = identityIndexes.compactMap { i in
            entity.attributeMappings.first(where: { $0.index == i }).map { m in
                let a = entity.attributes[i]
                return AttributePlan(index: i, keyPath: m.keyPath, type: a.type, name: a.name,
                                     transformerName: a.transformerName, identityPosition: identityIndexes.firstIndex(of: i) ?? -1,
                                     isOptional: a.isOptional)
            }
        }
        self.identity = identity.count == identityIndexes.count ? identity : []
        relationships = entity.relationshipMappings.map { m in
            let r = info.relationships[m.index]
            return RelationshipPlan(slot: m.index, keyPath: m.keyPath, name: r.description.name, isToMany: r.isToMany,
                                    destination: schema.entities[r.destinationNumber],
                                    append: r.isToMany && (r.description.mergePolicy ?? defaultPolicy) == .append)
        }
    }
}

final class AttributePlan {
    let index: Int
    let keyPath: JSONKeyPath
    /// The key, when the key path has one component (the common case, looked up directly).
    let type: AttributeType
    let name: String
    let transformerName: String?
    /// Position among the identity attributes, or -1.
    let identityPosition: Int
    let isOptional: Bool

    init(index: Int, keyPath: JSONKeyPath, type: AttributeType, name: String, transformerName: String?, identityPosition: Int,
         isOptional: Bool) {
        self.index = index
        self.isOptional = isOptional
        self.keyPath = keyPath
        keyCache = keyPath.firstKeyCache()
        self.type = type
        self.name = name
        self.transformerName = transformerName
        self.identityPosition = identityPosition
    }

    /// Where the key is in objects of the last shape met (one plan serves one importer).
    @exclusivity(unchecked) private var keyCache: JSONObject.KeyPositionCache

    /// The value at the key path in `object` (``JSONKeyPath/lookup(in:)-JSONObject``).
    @inline(__always)
    func lookup(in object: JSONObject) -> JSONLookup { keyPath.lookup(in: object, cache: &keyCache) }
}

final class RelationshipPlan {
    let slot: Int
    let keyPath: JSONKeyPath
    let name: String
    let isToMany: Bool
    let destination: EntityInfo
    let append: Bool

    init(slot: Int, keyPath: JSONKeyPath, name: String, isToMany: Bool, destination: EntityInfo, append: Bool) {
        self.slot = slot
        self.keyPath = keyPath
        keyCache = keyPath.firstKeyCache()
        self.name = name
        self.isToMany = isToMany
        self.destination = destination
        self.append = append
    }

    /// Where the key is in objects of the last shape met (one plan serves one importer).
    @exclusivity(unchecked) private var keyCache: JSONObject.KeyPositionCache

    /// The value at the key path in `object` (``JSONKeyPath/lookup(in:)-JSONObject``).
    @inline(__always)
    func lookup(in object: JSONObject) -> JSONLookup { keyPath.lookup(in: object, cache: &keyCache) }
}

/// The report status of each object an import touched (0 inserted, 1 updated, 2 unchanged),
/// by primary key: a byte array for the dense keys stores hand out (1, 2, 3, …), a
/// dictionary for the rest. One byte per object instead of a hash table entry.
struct StatusTable {
    /// Per key: 0 for none, else the code + 1, with ``topLevelFlag`` when the object was
    /// a top-level element of the import.
    private var dense: [UInt8] = []
    private var sparse: [Int64: UInt8] = [:]
    private static let denseLimit: Int64 = 1 << 28
    private static let topLevelFlag: UInt8 = 0x80

    @inline(__always)
    private func entry(_ key: Int64) -> UInt8 {
        if key > 0 && key < StatusTable.denseLimit {
            return Int(key) < dense.count ? dense[Int(key)] : 0
        }
        return sparse[key] ?? 0
    }

    @inline(__always)
    private mutating func setEntry(_ value: UInt8, _ key: Int64) {
        if key > 0 && key < StatusTable.denseLimit {
            let i = Int(key)
            if i >= dense.count { dense += [UInt8](repeating: 0, count: max(i + 1 - dense.count, dense.count)) }
            dense[i] = value
        } else {
            sparse[key] = value
        }
    }

    @inline(__always)
    func code(of key: Int64) -> UInt8? {
        let stored = entry(key) & ~StatusTable.topLevelFlag
        return stored == 0 ? nil : stored - 1
    }

    @inline(__always)
    mutating func set(_ code: UInt8, for key: Int64) {
        setEntry((entry(key) & StatusTable.topLevelFlag) | (code + 1), key)
    }

    /// Whether the object was a top-level element of an earlier batch (``markTopLevel(_:)``).
    @inline(__always)
    func isTopLevel(_ key: Int64) -> Bool { entry(key) & StatusTable.topLevelFlag != 0 }

    @inline(__always)
    mutating func markTopLevel(_ key: Int64) { setEntry(entry(key) | StatusTable.topLevelFlag, key) }
}
