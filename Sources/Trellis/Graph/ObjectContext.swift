/// A unit of work over a ``PersistentStore`` (Core Data's `NSManagedObjectContext`): an
/// identity map of registered ``ManagedObject``s, their unsaved changes, and the
/// operations that create, find, change, delete, save and roll back objects.
///
///     let context = ObjectContext(store: InMemoryStore(model: model))
///     let batman = try context.insert("Character")
///     try batman.setValue(.integer(1699), forKey: "id")
///     try context.save()                     // one store write; IDs become permanent
///     try context.fetch("Character", id: .integer(1699)) === batman   // true
///
/// - One object per stored object: fetching twice returns the same instance.
/// - Relationship changes keep inverses on both sides. Inverse to-many slots of objects
///   are updated lazily (applied when read), so linking a new object to a popular one
///   costs O(1), not O(size of its relationship).
/// - ``save()`` writes all changes in one `store.write { $0.apply(changes) }`; an object
///   whose values did not change produces no ``ObjectChange``.
/// - ``rollback()`` returns every registered object to its last saved state.
///
/// A context is not thread-safe; use it from one thread (or task) at a time.
public final class ObjectContext {
    /// The store objects are fetched from and saved to.
    public let store: any PersistentStore
    /// Entity mappers, dictionary transformers and value transformers the importer and
    /// exporter use.
    public var bindings: MappingBindings
    /// The store's model.
    public var model: ObjectModel { store.model }
    /// The origin of the changes ``save()`` writes (``ChangeOrigin``): ``ChangeOrigin/local``
    /// by default, so each saved change of an object of a pushable entity is recorded in the
    /// store's outbox in the save's transaction (``PersistentStore/outbox()``). Imports take
    /// theirs from ``ImportOptions/origin``.
    public var origin: ChangeOrigin
    /// Which entities' local changes are pushable and their stamp attributes (``PushRules``);
    /// default: every entity with identity attributes, stamp `updatedAt`.
    public var pushRules: PushRules

    let schema: ModelSchema
    @exclusivity(unchecked) var registered: [ObjectID: ManagedObject] = [:]
    @exclusivity(unchecked) var identityMap: [NamespacedIdentity: ManagedObject] = [:]
    @exclusivity(unchecked) var dirty: [ManagedObject] = []
    /// Inverse-maintenance operations for objects that are not registered (applied if they are faulted in).
    @exclusivity(unchecked) var pendingUnregistered: [ObjectID: [PendingLinks]] = [:]
    @exclusivity(unchecked) var nextTemporaryKey: Int64 = -1
    /// Objects registered so far (``register(_:)``, ``createObject(_:isPlaceholder:values:indexingIdentity:)``):
    /// the importer tells from it, without a lookup, that nothing was registered meanwhile.
    @exclusivity(unchecked) var registrationCount = 0
    /// While an import applies a batch: inverse changes that nothing will read are not
    /// recorded (``InverseBookkeeping``).
    @exclusivity(unchecked) var unreadInverses: InverseBookkeeping?
    /// Placeholders retyped as a sub-entity since the last save, old ID → new ID
    /// (``retype(_:as:)``): links still naming the old ID are rewritten when saving.
    @exclusivity(unchecked) var retyped: [ObjectID: ObjectID] = [:]
    /// The open session of an import (a write session) or of ``read(_:)``; nil otherwise.
    var session: (any StoreSession)?
    /// Registration epoch: objects registered during an import get a new one and are dropped after each batch.
    @exclusivity(unchecked) var epoch = 0

    /// A context over `store`, with `bindings` for imports and exports, saving changes of
    /// `origin` (default ``ChangeOrigin/local``) under `pushRules`.
    public init(
        store: any PersistentStore, bindings: MappingBindings = MappingBindings(), origin: ChangeOrigin = .local,
        pushRules: PushRules = PushRules()
    ) {
        self.store = store
        self.bindings = bindings
        self.origin = origin
        self.pushRules = pushRules
        self.schema = (store as? InMemoryStore)?.schema ?? ModelSchema(model: store.model)
    }

    // MARK: - State

    /// `true` when a registered object has unsaved changes.
    public var hasChanges: Bool { dirty.contains { $0.hasChanges } }

    /// The number of registered objects (imports register objects only while a batch is
    /// processed, so this stays small).
    public var registeredObjectCount: Int { registered.count }

    /// The objects with unsaved changes (inserted, updated or deleted), in the order they
    /// were first changed.
    public var changedObjects: [ManagedObject] { dirty.filter(\.hasChanges) }

    // MARK: - Creating

    /// A new object of the concrete entity `entity`, with the model's default values and a
    /// temporary ID; saved by the next ``save()``.
    /// - Throws: ``ModelError`` `.unknownEntity`; ``ContextError`` `.abstractEntity`.
    public func insert(_ entity: String) throws -> ManagedObject {
        let info = try entityInfo(entity)
        guard !info.entity.isAbstract else {
            throw ContextError(
                .abstractEntity, entity: entity, property: nil,
                message: "\(entity) is abstract; insert one of: \(info.entity.kindNames.dropFirst().joined(separator: ", "))")
        }
        return createObject(info, isPlaceholder: false)
    }

    // MARK: - Fetching

    /// The object with `id`: the registered instance, or the stored object faulted in; nil
    /// when there is no such object (or it was deleted in this context).
    /// - Throws: store errors.
    public func object(with id: ObjectID) throws -> ManagedObject? {
        if let object = registered[id] { return object.isDeletedFlag ? nil : object }
        guard !id.isTemporary else { return nil }
        let snapshots = try withSession { try $0.fetch(ids: [id]) }
        guard let snapshot = snapshots.first else { return nil }
        return try register(snapshot)
    }

    /// The object of `entity` (or a sub-entity) whose identity attributes have `identity`
    /// (one value per identity attribute, in ``ResolvedEntity/identityAttributes`` order,
    /// already of the attributes' types); registered objects first, then the store.
    /// - Throws: ``ModelError`` `.unknownEntity`; ``ContextError`` `.invalidIdentity` when
    ///   the entity has no identity attributes or the values do not fit; store errors.
    public func fetch(_ entity: String, identity: [AttributeValue]) throws -> ManagedObject? {
        let info = try entityInfo(entity)
        try checkIdentity(identity, of: info)
        let key = IdentityKey(identity)
        if let object = registeredObject(info, key) { return object }
        let snapshots = try withSession { try $0.fetch(entity: entity, identities: [identity]) }
        for snapshot in snapshots {
            let object = try register(snapshot)
            if !object.isDeletedFlag, info.includes(object.info.number) { return object }
        }
        return nil
    }

    /// The object of `entity` whose single identity attribute is `id`.
    /// - Throws: as ``fetch(_:identity:)``.
    public func fetch(_ entity: String, id: AttributeValue) throws -> ManagedObject? {
        try fetch(entity, identity: [id])
    }

    /// Objects of `entity` and its sub-entities matching `predicate` (nil: all), ordered by
    /// object ID (unsaved inserted objects, with temporary IDs, first). Unsaved changes are
    /// taken into account: the predicate is evaluated on the registered objects' current
    /// values, by the evaluator every store's answer matches (``RequestEvaluator``).
    /// - Throws: ``ModelError`` `.unknownEntity`; ``ContextError`` `.unknownProperty` for a
    ///   name the predicate uses that the entity lacks, `.typeMismatch` for a value that does
    ///   not convert to its attribute's type (``StorePredicate/request(entity:matching:model:)``);
    ///   store errors.
    public func fetch(_ entity: String, matching predicate: StorePredicate? = nil) throws -> [ManagedObject] {
        let info = try entityInfo(entity)
        let request: ResolvedFetchRequest
        do {
            request = try StorePredicate.request(entity: info.entity, matching: predicate, model: model)
        } catch {
            throw ContextError(
                error.code == .typeMismatch ? .typeMismatch : .unknownProperty, entity: entity,
                property: error.keyPath, message: error.message)
        }
        let snapshots = try withSession { try $0.fetch(entity: entity, matching: predicate) }
        // Unsaved values decide for objects with changes; destinations on a key path are the
        // registered objects as they are now.
        let evaluator =
            predicate == nil
            ? nil
            : RequestEvaluator(
                request,
                lookup: { [unowned self] id in
                    if let object = self.registered[id] { return object.isDeletedFlag ? nil : object.currentSnapshot }
                    return try self.withSession { try $0.fetch(ids: [id]).first }
                })
        var result: [ManagedObject] = []
        var seen = Set<ObjectID>()
        for snapshot in snapshots {
            let object = try register(snapshot)
            seen.insert(object.objectID)
            if object.isDeletedFlag { continue }
            if object.isInDirtyList, let evaluator, !(try evaluator.matches(object.currentSnapshot)) { continue }
            result.append(object)
        }
        for object in dirty where !object.isDeletedFlag && info.includes(object.info.number) && !seen.contains(object.objectID) {
            if let evaluator, !(try evaluator.matches(object.currentSnapshot)) { continue }
            result.append(object)
        }
        result.sort { $0.objectID < $1.objectID }
        return result
    }

    // MARK: - Internals: registration

    func entityInfo(_ name: String) throws -> EntityInfo {
        if let info = schema.info(named: name) { return info }
        _ = try model.requireEntity(name)  // throws the model's error, listing the entities
        throw ModelError(.unknownEntity, entity: name, property: nil, message: "unknown entity '\(name)'")
    }

    /// Runs `body` with the import's open session, or a fresh read session.
    func withSession<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        if let session { return try body(session) }
        return try store.read(body)
    }

    /// The registered object for a snapshot, registering it when new.
    func register(_ snapshot: ObjectSnapshot) throws -> ManagedObject {
        if let existing = registered[snapshot.id] { return existing }
        guard let info = schema.info(named: snapshot.id.entityName) else {
            throw StoreError(.unknownObject, message: "the store returned an object of unknown entity '\(snapshot.id.entityName)'")
        }
        let object = ManagedObject(
            info: info, id: snapshot.id, isPlaceholder: snapshot.isPlaceholder, values: snapshot.attributes,
            links: snapshot.relationships,
            committed: CommittedState(values: snapshot.attributes, links: snapshot.relationships, isPlaceholder: snapshot.isPlaceholder),
            context: self, epoch: epoch)
        registered[snapshot.id] = object
        registrationCount += 1
        if !pendingUnregistered.isEmpty, let pending = pendingUnregistered.removeValue(forKey: snapshot.id) {
            object.pending = pending
        }
        indexIdentity(object)
        return object
    }

    /// A new object with defaults (or the given values) and a temporary ID, registered and dirty.
    /// `indexingIdentity: false` leaves it out of the identity map (the importer indexes it
    /// once the payload's identity values are set; default values must not stay indexed).
    func createObject(
        _ info: EntityInfo, isPlaceholder: Bool, values: [AttributeValue?]? = nil,
        indexingIdentity: Bool = true
    ) -> ManagedObject {
        let id = ObjectID(entityName: info.name, primaryKey: nextTemporaryKey)
        nextTemporaryKey -= 1
        let object = ManagedObject(
            info: info, id: id, isPlaceholder: isPlaceholder,
            values: values ?? info.defaultValues, links: info.emptyLinks, committed: nil, context: self, epoch: epoch)
        registered[id] = object
        registrationCount += 1
        if indexingIdentity { indexIdentity(object) }
        markDirty(object)
        return object
    }

    func registeredObject(_ info: EntityInfo, _ key: IdentityKey) -> ManagedObject? {
        guard let object = registeredObject(inNamespaceOf: info, key), info.includes(object.info.number) else { return nil }
        return object
    }

    /// The registered, undeleted object with identity `key` in `info`'s identity namespace,
    /// whatever its entity: `info`'s own, a sub-entity, a sibling or the ancestor that
    /// declares the identity (which the store holds unique across the namespace).
    func registeredObject(inNamespaceOf info: EntityInfo, _ key: IdentityKey) -> ManagedObject? {
        guard info.namespace >= 0, let object = identityMap[NamespacedIdentity(namespace: info.namespace, key: key)],
            !object.isDeletedFlag
        else { return nil }
        return object
    }

    func indexIdentity(_ object: ManagedObject) {
        for namespace in object.info.lineageNamespaces {
            if let key = schema.entities[namespace].identity(of: object.values) {
                identityMap[NamespacedIdentity(namespace: namespace, key: key)] = object
            }
        }
    }

    func unindexIdentity(_ object: ManagedObject) {
        for namespace in object.info.lineageNamespaces {
            if let key = schema.entities[namespace].identity(of: object.values) {
                let k = NamespacedIdentity(namespace: namespace, key: key)
                if identityMap[k] === object { identityMap[k] = nil }
            }
        }
    }

    func unregister(_ object: ManagedObject) {
        if registered[object.objectID] === object { registered[object.objectID] = nil }
        unindexIdentity(object)
        object.context = nil
    }

    func markDirty(_ object: ManagedObject) {
        if !object.isInDirtyList {
            object.isInDirtyList = true
            dirty.append(object)
        }
    }

    // MARK: - Internals: attributes

    func setAttribute(_ object: ManagedObject, _ index: Int, _ value: AttributeValue?) throws {
        guard !object.isDeletedFlag else {
            throw ContextError(
                .objectDeleted, entity: object.entity.name, property: object.entity.attributes[index].name,
                message: "\(object.objectID) is deleted")
        }
        if object.values[index] == value { return }
        if object.entity.identityAttributeIndexes.contains(index) {
            var values = object.values
            values[index] = value
            for namespace in object.info.lineageNamespaces {
                guard let key = schema.entities[namespace].identity(of: values),
                    let other = identityMap[NamespacedIdentity(namespace: namespace, key: key)],
                    other !== object, !other.isDeletedFlag
                else { continue }
                throw ContextError(
                    .invalidIdentity, entity: object.entity.name, property: object.entity.attributes[index].name,
                    message: "\(other.objectID) already has identity \(key)")
            }
            unindexIdentity(object)
            object.values[index] = value
            indexIdentity(object)
        } else {
            object.values[index] = value
        }
        markDirty(object)
    }
}
