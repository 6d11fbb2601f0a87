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
    /// The number of the entity the element was requested as (phase 3 checks it is the same).
    var requested: Int
    /// For a nested object without mapped relationships (``LeafObjects``): the position in
    /// the batch of an earlier identical occurrence, whose object it resolves to without
    /// being applied again; ``firstLeaf`` for an occurrence applied in full that later ones
    /// may repeat; ``notALeaf`` otherwise.
    var leaf: Int = Prepared.notALeaf
    /// The position in the batch after this element's subtree (its nested objects and
    /// identifiers): where phase 3's cursor must be once the element is applied.
    var end: Int = 0
    /// A top-level object holding only the identity attributes (``Importer/topLevelReference(_:_:_:key:)``),
    /// read as a bare identifier, and counted unchanged when found.
    var isReference = false

    static let notALeaf = -2
    static let firstLeaf = -1
}
