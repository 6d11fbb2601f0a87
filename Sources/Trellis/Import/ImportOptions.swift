/// How ``ObjectContext/importObjects(from:entity:options:)`` merges JSON into the graph.
///
///     var options = ImportOptions()
///     options.nullPolicy = .ignore          // keep stored values on JSON null
///     options.toManyPolicy = .append        // add links instead of replacing them
///     options.deleteMissing = .allObjects   // delete Characters the payload no longer has
///     let report = try context.importObjects(from: json, entity: "Character", options: options)
public struct ImportOptions: Sendable {
    /// What a JSON `null` does to a stored value.
    public enum NullPolicy: Sendable, Hashable {
        /// `null` clears an attribute or a to-one and empties a to-many (default).
        case clear
        /// `null` leaves the stored value unchanged, like a missing key.
        case ignore
    }

    /// Which stored objects an import may delete because the payload no longer contains
    /// them. The scope is the caller's statement of what the payload covers; objects
    /// outside it are never deleted.
    public struct DeletionScope: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case allObjects
            case matching(StorePredicate)
            case relationship(parent: ObjectID, name: String)
        }
        let kind: Kind
        /// `true`: report what would be deleted (``ImportReport/deletedObjectIDs``)
        /// without deleting anything; the rest of the import is applied.
        public var dryRun: Bool

        /// Every object of the imported entity (and its sub-entities) not in the payload.
        public static let allObjects = DeletionScope(kind: .allObjects, dryRun: false)

        /// Objects of the imported entity matching `predicate` and not in the payload. The
        /// predicate runs as on every store (``StorePredicate/request(entity:matching:model:)``);
        /// one that does not fit the entity fails the import, which then writes nothing, with
        /// ``ImportError`` `.invalidOption`.
        public static func matching(_ predicate: StorePredicate) -> DeletionScope {
            DeletionScope(kind: .matching(predicate), dryRun: false)
        }

        /// Objects linked from `parent`'s relationship `name` before the import and not in
        /// the payload (e.g. the comments of one post).
        public static func relationship(_ name: String, of parent: ObjectID) -> DeletionScope {
            DeletionScope(kind: .relationship(parent: parent, name: name), dryRun: false)
        }

        /// This scope, reporting instead of deleting.
        public var reportingOnly: DeletionScope {
            var copy = self
            copy.dryRun = true
            return copy
        }
    }

    /// JSON `null` handling (default `.clear`).
    public var nullPolicy: NullPolicy = .clear
    /// How a JSON array merges into a to-many relationship that has no `JSONMergePolicy`
    /// annotation (the annotation, when present, wins). Default `.replace`.
    public var toManyPolicy: ToManyMergePolicy = .replace
    /// For a payload that is an object keyed by identifier (`{"1699": {...}}`), or a source
    /// whose elements have keys: the attribute that receives each element's key (coerced to
    /// its type, before identity lookup). Must be a mapped attribute of the entity.
    public var keyAttribute: String?
    /// Delete objects the payload no longer contains, within this scope (default: never).
    public var deleteMissing: DeletionScope?
    /// Compute the whole report, then roll everything back (store and context).
    public var dryRun = false
    /// Elements processed per batch (identity fetch, apply, flush); memory is proportional
    /// to it. Default 5,000; values below 1 count as 1.
    public var batchSize = 5000
    /// Collect ``ImportReport/objectIDs`` (one ID per top-level element). Turn off for
    /// streams of millions of elements to keep memory bounded.
    public var reportsObjectIDs = true
    /// The origin of the import's changes (``ChangeOrigin``): ``ChangeOrigin/import`` (the
    /// default: an API payload, not recorded), ``ChangeOrigin/sync`` (pages of `trellis sync`),
    /// or ``ChangeOrigin/local`` (`trellis import --local`: each change is recorded in the
    /// outbox, by the context's ``ObjectContext/pushRules``). Unsaved changes of the context
    /// are written first, in the same transaction, with the context's ``ObjectContext/origin``.
    public var origin: ChangeOrigin = .import

    /// Default options: clear on null, replace to-manys, no deletion, batches of 5,000.
    public init() {}
}
