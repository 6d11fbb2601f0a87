/// What an observation delivers: the request's results, and how they changed since the
/// previous delivery (nil for the first, which holds the results as they were).
public struct FetchResultsUpdate: Sendable {
    /// The results, in the request's order.
    public let results: [FetchedObject]
    /// The change from the previous results; nil for the first delivery.
    public let change: FetchResultsChange?
    /// The store commit the results reflect (``StoreCommit/sequence``).
    public let sequence: Int64
}

/// How a request's results changed after a commit (Core Data's fetched results controller
/// terms): objects that entered (with their new positions), left (with their old positions)
/// or changed while staying in (old and new positions, and the changed attributes and
/// relationships by name). Positions are in the sorted results.
public struct FetchResultsChange: Sendable, Hashable {
    public struct Insertion: Sendable, Hashable {
        public let id: ObjectID
        /// Position in the new results.
        public let index: Int
        public init(id: ObjectID, index: Int) {
            self.id = id
            self.index = index
        }
    }

    public struct Deletion: Sendable, Hashable {
        public let id: ObjectID
        /// Position in the previous results.
        public let index: Int
        public init(id: ObjectID, index: Int) {
            self.id = id
            self.index = index
        }
    }

    public struct Update: Sendable, Hashable {
        public let id: ObjectID
        /// Position in the previous results.
        public let oldIndex: Int
        /// Position in the new results (differs from `oldIndex` when the object moved).
        public let index: Int
        /// Names of the attributes that changed (empty when only relationships did, or when
        /// the observer re-ran its request and compared values).
        public let changedAttributes: [String]
        /// Names of the relationships that changed.
        public let changedRelationships: [String]
        public init(id: ObjectID, oldIndex: Int, index: Int, changedAttributes: [String], changedRelationships: [String]) {
            self.id = id
            self.oldIndex = oldIndex
            self.index = index
            self.changedAttributes = changedAttributes
            self.changedRelationships = changedRelationships
        }
    }

    /// Entered the results, by new position.
    public var inserted: [Insertion] = []
    /// Changed and still in the results, by new position.
    public var updated: [Update] = []
    /// Left the results (deleted, or no longer matching), by old position.
    public var deleted: [Deletion] = []

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
