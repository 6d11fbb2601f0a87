/// Where the changes a write session applies come from, which decides whether they are
/// recorded in the store's outbox (`trellis_outbox`) to be pushed to the API later.
///
/// - ``local``: edits made on this side: managed objects changed, inserted or deleted through
///   an ``ObjectContext`` and saved, `trellis import … --local`, `trellis delete … --local`.
///   Each applied change of an object of a pushable entity (``PushRules``) appends or merges an
///   outbox row **in the same transaction** (see ``OutboxEntry`` for the rules).
/// - ``sync``: pages `trellis sync` pulls and replays; never recorded, and guarded so they never
///   overwrite a local change the outbox still holds (see `PullGuard`: docs/Sync.md,
///   "Pulls and local changes").
/// - ``push``: the pusher's own writes: a server's acknowledgement (its identity, stamps and
///   values) written back, a conflict resolved; never recorded and never guarded.
/// - ``import``: plain imports of API payloads (`trellis import`, ``ObjectContext/importObjects(from:entity:options:)``
///   unless ``ImportOptions/origin`` says otherwise) and raw ``StoreSession/apply(_:)`` calls,
///   the default of a new session; never recorded.
public enum ChangeOrigin: String, Sendable, Hashable, CaseIterable {
    case local
    case sync
    case push
    case `import`
}

/// Which entities' local changes can be pushed, and which attribute holds an object's server
/// stamp, until a source file's `push` section names them (issue 23, point 3).
///
/// An entity is pushable when it is listed in ``pushableEntities`` (a listed entity covers its
/// sub-entities), or, with ``pushableEntities`` nil (the default), when it has identity
/// attributes: the server knows an object by its identity, so an object without one cannot be
/// addressed by a later `PUT` or `DELETE`.
///
/// A local change to an object of an entity that is not pushable is never dropped silently:
/// it is kept as an outbox row in state ``OutboxEntry/State/rejected`` with 0 attempts and the
/// reason as ``OutboxEntry/lastError`` (`entity Note is not pushable: it has no identity
/// attributes`), merged by the same rules as pending rows, and reported by ``PersistentStore/outbox()``.
public struct PushRules: Sendable, Hashable {
    /// The pushable entities by name (each with its sub-entities); nil: every entity with
    /// identity attributes. Default nil.
    public var pushableEntities: Set<String>?
    /// The attribute holding the server's stamp of an object (Parse `updatedAt`, an ETag
    /// kept in an attribute), by entity name; its stored value before a change is the row's
    /// ``OutboxEntry/base``. An entity not listed uses its attribute named `updatedAt`, when it
    /// has one (else the base is nil). Default empty.
    public var stampAttributes: [String: String]

    public init(pushableEntities: Set<String>? = nil, stampAttributes: [String: String] = [:]) {
        self.pushableEntities = pushableEntities
        self.stampAttributes = stampAttributes
    }

    /// Nil when objects of `entity` are pushable, else the reason they are not.
    public func reasonNotPushable(_ entity: ResolvedEntity) -> String? {
        if let names = pushableEntities {
            if names.contains(entity.name) || entity.ancestorNames.contains(where: names.contains) { return nil }
            return "entity \(entity.name) is not pushable: it is not one of the pushable entities"
        }
        if entity.identityAttributeIndexes.isEmpty {
            return "entity \(entity.name) is not pushable: it has no identity attributes"
        }
        return nil
    }

    /// The position of `entity`'s stamp attribute (``stampAttributes``, else `updatedAt`), if any.
    public func stampAttributeIndex(_ entity: ResolvedEntity) -> Int? {
        var name = stampAttributes[entity.name]
        if name == nil { name = entity.ancestorNames.lazy.compactMap { self.stampAttributes[$0] }.first }
        return entity.attributeIndex(of: name ?? "updatedAt")
    }
}
