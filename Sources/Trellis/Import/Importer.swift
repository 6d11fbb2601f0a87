/// The import engine behind ``ObjectContext/importObjects(from:entity:options:)``.
///
/// Per batch of elements, one file per phase:
/// 1. *collect* (`Importer+Collect.swift`): walk every element (nested objects and bare
///    identifiers included), apply dictionary transformers and entity mappers, coerce
///    identity values, and collect the identities per identity namespace;
/// 2. *look up* (`Importer+Lookup.swift`): one `fetch(entity:identities:)` per namespace for
///    identities not yet registered (and, once, for objects registered before the import,
///    refreshed from the store);
/// 3. *apply* (`Importer+Apply.swift`): walk again in the same order (`Importer+Walk.swift`),
///    finding or creating each object and merging its values and links. A stored object the
///    fetch returned is compared with the JSON first and becomes a ``ManagedObject`` only when
///    something differs (`Importer+StoredObjects.swift`): an unchanged object costs no
///    registration, no change tracking and no write;
/// 4. *flush* (`Importer+Flush.swift`): write the batch's change set into the open write
///    session, then drop the batch's objects from the context.
///
/// Each rule has one home: uniquing, the one find-or-create by identity
/// (`Importer+Uniquing.swift`); placeholder creation and completion
/// (`Importer+Placeholders.swift`); merge rules for values and links
/// (`Importer+MergeRules.swift`); validation (`Importer+Validation.swift`).
///
/// Paths are not built on the way: a stack of steps is kept (``withStep(_:_:)``) and turned
/// into a ``JSONPath`` only for an error or a diagnostic.
final class Importer {
    let context: ObjectContext
    let session: any StoreSession
    let options: ImportOptions
    let root: EntityInfo
    let importEpoch: Int
    var schema: ModelSchema { context.schema }
    /// By namespace: whether top-level elements resolve in it (the namespaces of the imported
    /// entity and of its sub-entities, which may declare identities of their own).
    let topLevelNamespaces: [Bool]
    /// By entity number: its relationship rules (``RelationshipRule``), nil when it has none.
    let relationshipRules: [[RelationshipRule]?]
    /// This batch's touched objects of entities with relationship rules, with the element
    /// and path that touched them (``validateRelationships()``).
    @exclusivity(unchecked) var constrained: [(object: ManagedObject, element: Int, path: [PathStep])] = []

    var plans: [EntityPlan?]
    var transformers: [String: JSONValueTransformer] = [:]

    // Batch state.
    @exclusivity(unchecked) var elements: [ImportElement] = []
    @exclusivity(unchecked) var prepared: [Prepared] = []
    @exclusivity(unchecked) var cursor = 0
    /// Identities met in the batch, per identity namespace (entity number).
    @exclusivity(unchecked) var requests: [Set<IdentityKey>]
    @exclusivity(unchecked) var steps: [PathStep] = []
    @exclusivity(unchecked) var elementIndex = 0
    var batchNumber = 0
    @exclusivity(unchecked) var touched: [ManagedObject] = []
    @exclusivity(unchecked) var topLevel: [TopLevelObject] = []
    /// The stored objects fetched for the batch and not registered in the context.
    @exclusivity(unchecked) var stored: [StoredObject] = []
    /// Identity → position in `stored`, in every identity namespace of each object.
    @exclusivity(unchecked) var storedByIdentity: [NamespacedIdentity: Int] = [:]
    /// ``ObjectContext/registrationCount`` when `stored` was filled: while it is unchanged,
    /// no stored object can have been registered.
    @exclusivity(unchecked) var storedRegistrationCount = 0
    /// Stored objects found unchanged and left unregistered, for the report.
    @exclusivity(unchecked) var unchangedStored: [Int] = []
    /// The last JSON of each nested object without mapped relationships met in the batch.
    @exclusivity(unchecked) var leaves = LeafObjects()
    /// By position in `prepared`: the object a leaf's first occurrence resolved to (phase 3).
    @exclusivity(unchecked) var resolvedLeaves: [ObjectID?] = []
    /// By position in `prepared`: the current destination a nested object without identity
    /// attributes resolves to (``matchOwnedDestinations(_:_:of:current:)``), until it is applied.
    @exclusivity(unchecked) var ownedDestinations: [Int: ManagedObject] = [:]

    // Whole-import state.
    @exclusivity(unchecked) var report = ImportReport()
    /// Per root entity number: primary key → 0 inserted, 1 updated, 2 unchanged.
    @exclusivity(unchecked) var status: [StatusTable]
    @exclusivity(unchecked) var importedIDs = Set<ObjectID>()
    /// Stored placeholders this import completed as a sub-entity: old ID → new ID (the same
    /// primary key), for the IDs of top-level elements recorded before the retype
    /// (``renamed(_:)``).
    @exclusivity(unchecked) var retypedIDs: [ObjectID: ObjectID] = [:]
    /// Objects registered before the import that it has read again from the store.
    @exclusivity(unchecked) var rereadIDs = Set<ObjectID>()
    var scopeCandidates: [ObjectID]?
    /// What ``topLevelReference(_:_:_:key:)`` checks against (`Importer+References.swift`), once made.
    var topLevelKeys: IdentityKeyTree?
    /// The inverse changes phase 3 leaves unrecorded (``InverseBookkeeping``).
    lazy var unreadInverses = InverseBookkeeping(schema: schema, epoch: importEpoch)
    var diagnosticCount = 0

    init(context: ObjectContext, session: any StoreSession, root: EntityInfo, options: ImportOptions, epoch: Int) {
        self.context = context
        self.session = session
        self.root = root
        self.options = options
        self.importEpoch = epoch
        self.plans = Array(repeating: nil, count: context.schema.entities.count)
        var topLevelNamespaces = [Bool](repeating: false, count: context.schema.entities.count)
        for info in context.schema.entities where root.includes(info.number) && info.namespace >= 0 {
            topLevelNamespaces[info.namespace] = true
        }
        self.topLevelNamespaces = topLevelNamespaces
        self.relationshipRules = context.schema.entities.map(RelationshipRule.rules(of:))
        self.requests = Array(repeating: [], count: context.schema.entities.count)
        self.status = Array(repeating: StatusTable(), count: context.schema.entities.count)
        report.isDryRun = options.dryRun
    }

    // MARK: - Driver

    func run<Source: ImportSource>(_ source: inout Source) throws -> ImportReport {
        if let keyAttribute = options.keyAttribute {
            guard let i = root.entity.attributeIndex(of: keyAttribute),
                root.entity.attributeMappings.contains(where: { $0.index == i })
            else {
                throw ImportError(
                    .invalidOption, path: .root, entity: root.name, property: keyAttribute, value: nil,
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
        if !retypedIDs.isEmpty {
            // Top-level placeholders of earlier batches completed as a sub-entity since.
            report.objectIDs = report.objectIDs.map(renamed)
            importedIDs = Set(importedIDs.map(renamed))
        }
        try deleteMissing()
        return report
    }

    func runBatch() throws {
        batchNumber += 1
        prepared.removeAll(keepingCapacity: true)
        for namespace in requests.indices where !requests[namespace].isEmpty { requests[namespace].removeAll(keepingCapacity: true) }
        touched.removeAll(keepingCapacity: true)
        constrained.removeAll(keepingCapacity: true)
        topLevel.removeAll(keepingCapacity: true)
        stored.removeAll(keepingCapacity: true)
        storedByIdentity.removeAll(keepingCapacity: true)
        unchangedStored.removeAll(keepingCapacity: true)
        leaves.removeAll()

        // 1. Prepare.
        for (i, element) in elements.enumerated() {
            elementIndex = i
            if case .null = element.value {
                skipNullElement()
                continue
            }
            try prepare(element.value, root, key: element.key)
        }
        // 2. Look up, once per identity namespace.
        try lookUpIdentities()
        // 3. Apply.
        storedRegistrationCount = context.registrationCount
        context.unreadInverses = unreadInverses
        defer { context.unreadInverses = nil }
        cursor = 0
        resolvedLeaves = Array(repeating: nil, count: prepared.count)
        ownedDestinations.removeAll()
        for i in elements.indices {
            elementIndex = i
            if case .null = elements[i].value { continue }  // skipped in phase 1
            topLevel.append(try applyTopLevel())
        }
        // 4. Flush.
        try flush(countingTouched: true)
    }
}
