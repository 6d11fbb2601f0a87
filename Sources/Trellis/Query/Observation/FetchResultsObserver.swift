import Dispatch
import Foundation

/// Keeps one request's results up to date with a store's commits and delivers
/// ``FetchResultsUpdate``s (the engine behind ``ObjectContext/observe(_:)``).
///
/// After a commit it reads the store's ``StoreCommit`` (the importer's own diff, logged
/// with the commit) instead of running the request again: the changed objects of the
/// request's entity are fetched by ID with the request's predicate (one query), removed
/// from or placed into the sorted results, and a commit that touches nothing the request
/// sees delivers nothing. It runs the request again (comparing old and new results) when
/// the commit changed an entity the request reaches through a key path (`publisher.name`,
/// `ANY powers.name`), when the request has a limit or offset and a changed object could
/// enter or leave its window, and when the store's log no longer holds the commits since
/// the last delivery.
///
/// Work runs on the observer's own serial queue, 5 ms after a wake-up (wake-ups meanwhile are
/// coalesced); updates are delivered there, in order.
final class FetchResultsObserver: @unchecked Sendable {
    // SAFETY: every mutable property is touched only on `queue`, except `isCancelled` and
    // `wakePending`, which are guarded by `lock`. `store`, `request` and `deliver` are
    // immutable and Sendable.
    private let store: any ObservableStore
    private let request: ResolvedFetchRequest
    private let deliver: @Sendable (Result<FetchResultsUpdate, any Error>) -> Void
    private let queue = DispatchQueue(label: "trellis.observation")
    private let lock = NSLock()
    private var isCancelled = false
    private var wakePending = false
    private var started = false
    private var token: CommitListenerToken?
    private var sequence: Int64 = 0
    private var results: [FetchedObject] = []
    private var keys: [[AttributeValue?]] = []
    /// Entities the request reaches through key paths (a change to one re-runs the request).
    private let reached: Set<String>
    private let kinds: Set<String>

    init(
        store: any ObservableStore, request: ResolvedFetchRequest,
        deliver: @escaping @Sendable (Result<FetchResultsUpdate, any Error>) -> Void
    ) {
        self.store = store
        self.request = request
        self.deliver = deliver
        self.kinds = Set(request.entity.kindNames)
        var reached = Set<String>()
        FetchResultsObserver.collect(request.predicate, into: &reached)
        for d in request.sortDescriptors { for hop in d.keyPath.hops { reached.formUnion(hop.destination.kindNames) } }
        self.reached = reached
    }

    /// Delivers the current results, then an update after each commit that changes them.
    func start() {
        let token = store.addCommitListener { [weak self] in self?.wake() }
        queue.async {
            self.token = token
            self.initial()
        }
    }

    func cancel() {
        lock.withLock { isCancelled = true }
        queue.async {
            self.token?.cancel()
            self.token = nil
        }
    }

    private var cancelled: Bool { lock.withLock { isCancelled } }

    /// How long a wake-up waits before the observer reads the commits (5 ms).
    static let coalescing = DispatchTimeInterval.milliseconds(5)

    private func wake() {
        let schedule = lock.withLock { () -> Bool in
            guard !isCancelled, !wakePending else { return false }
            wakePending = true
            return true
        }
        // A short pause coalesces the wake-ups of commits in quick succession and lets the
        // writer finish its own work after the commit before observers compete for the CPU.
        if schedule { queue.asyncAfter(deadline: .now() + FetchResultsObserver.coalescing) { self.process() } }
    }

    // MARK: - Work (on `queue`)

    private func initial() {
        guard !cancelled else { return }
        do {
            let (seq, fetched) = try fetchAll()
            sequence = seq
            results = fetched.map(\.0)
            keys = fetched.map(\.1)
            started = true
            deliver(.success(FetchResultsUpdate(results: results, change: nil, sequence: sequence)))
        } catch {
            fail(error)
        }
    }

    private func process() {
        lock.withLock { wakePending = false }
        guard started, !cancelled else { return }
        do {
            guard let commits = try store.commits(after: sequence) else {
                try rerun(sequence: nil)
                return
            }
            guard var merged = commits.first else { return }
            for commit in commits.dropFirst() { merged.merge(commit) }
            try apply(merged)
        } catch {
            fail(error)
        }
    }

    private func fail(_ error: any Error) {
        lock.withLock { isCancelled = true }
        token?.cancel()
        token = nil
        deliver(.failure(error))
    }

    /// The request's results with their sort keys, and the sequence they reflect.
    private func fetchAll() throws -> (Int64, [(FetchedObject, [AttributeValue?])]) {
        let request = self.request
        let model = store.model
        let (seq, rows) = try store.readObserving { session -> [(FetchedObject, [AttributeValue?])] in
            let evaluator = RequestEvaluator(request, lookup: { try session.fetch(ids: [$0]).first })
            return try session.fetch(request).compactMap { s in
                guard let object = model.fetchedObject(s) else { return nil }
                return (object, try evaluator.sortKeys(of: s))
            }
        }
        return (seq, rows)
    }

    private func apply(_ commit: StoreCommit) throws {
        let newSequence = commit.sequence
        if !commit.entityNames.isDisjoint(with: reached) {
            try rerun(sequence: newSequence, changes: commit)
            return
        }
        var candidates: [ObjectID] = []
        for id in commit.inserted where kinds.contains(id.entityName) { candidates.append(id) }
        for id in commit.updated.keys where kinds.contains(id.entityName) { candidates.append(id) }
        let deleted = Set(commit.deleted.filter { kinds.contains($0.entityName) })
        var oldIndex: [ObjectID: Int] = [:]
        for (i, object) in results.enumerated() { oldIndex[object.id] = i }
        let removedByDeletion = deleted.filter { oldIndex[$0] != nil }
        // With an offset, an object deleted before the window (or no longer matching there)
        // moves the window: only running the request again tells.
        guard !candidates.isEmpty || !removedByDeletion.isEmpty || (request.offset > 0 && !deleted.isEmpty) else {
            sequence = newSequence
            return
        }
        let request = self.request
        let model = store.model
        let (_, matched) = try store.readObserving { session -> [(FetchedObject, [AttributeValue?])] in
            guard !candidates.isEmpty else { return [] }
            let restricted = request.restricted(to: candidates)
            let evaluator = RequestEvaluator(request, lookup: { try session.fetch(ids: [$0]).first })
            return try session.fetch(restricted).compactMap { s in
                guard let object = model.fetchedObject(s) else { return nil }
                return (object, try evaluator.sortKeys(of: s))
            }
        }
        if request.limit != nil || request.offset > 0 {
            let touchesResults = !removedByDeletion.isEmpty || candidates.contains { oldIndex[$0] != nil }
            if matched.isEmpty && !touchesResults && request.offset == 0 {
                sequence = newSequence
                return
            }
            try rerun(sequence: newSequence, changes: commit)
            return
        }
        // Unlimited: take the changed objects out, put the matching ones back in order.
        let leaving = Set(candidates).union(deleted)
        var rows: [(FetchedObject, [AttributeValue?])] = []
        rows.reserveCapacity(results.count + matched.count)
        for (i, object) in results.enumerated() where !leaving.contains(object.id) { rows.append((object, keys[i])) }
        for row in matched.sorted(by: { precedes($0, $1) }) {
            var low = 0
            var high = rows.count
            while low < high {
                let mid = (low + high) / 2
                if precedes(rows[mid], row) { low = mid + 1 } else { high = mid }
            }
            rows.insert(row, at: low)
        }
        var change = FetchResultsChange()
        var newIndex: [ObjectID: Int] = [:]
        for (i, row) in rows.enumerated() { newIndex[row.0.id] = i }
        for id in leaving {
            if let old = oldIndex[id], newIndex[id] == nil { change.deleted.append(.init(id: id, index: old)) }
        }
        for (object, _) in matched {
            guard let index = newIndex[object.id] else { continue }
            if let old = oldIndex[object.id] {
                let properties = commit.updated[object.id] ?? PropertyChanges()
                change.updated.append(
                    .init(
                        id: object.id, oldIndex: old, index: index,
                        changedAttributes: names(properties.attributes, object.entity.attributes.map(\.name)),
                        changedRelationships: names(properties.relationships, object.entity.relationships.map(\.name))))
            } else {
                change.inserted.append(.init(id: object.id, index: index))
            }
        }
        sequence = newSequence
        results = rows.map(\.0)
        keys = rows.map(\.1)
        publish(change)
    }

    /// Runs the request again and delivers the difference from the current results.
    private func rerun(sequence newSequence: Int64?, changes: StoreCommit? = nil) throws {
        let (seq, fetched) = try fetchAll()
        var oldIndex: [ObjectID: Int] = [:]
        for (i, object) in results.enumerated() { oldIndex[object.id] = i }
        var change = FetchResultsChange()
        var newIDs = Set<ObjectID>()
        for (i, (object, newKeys)) in fetched.enumerated() {
            newIDs.insert(object.id)
            if let old = oldIndex[object.id] {
                let properties = changes?.updated[object.id]
                // An object that only shifted (others entered or left before it) is not an
                // update: its values and sort keys are as they were, so its order among the
                // other unchanged objects is too.
                if results[old] != object || keys[old] != newKeys || properties != nil {
                    let changed = properties ?? PropertyChanges()
                    change.updated.append(
                        .init(
                            id: object.id, oldIndex: old, index: i,
                            changedAttributes: names(changed.attributes, object.entity.attributes.map(\.name)),
                            changedRelationships: names(changed.relationships, object.entity.relationships.map(\.name))))
                }
            } else {
                change.inserted.append(.init(id: object.id, index: i))
            }
        }
        for (i, object) in results.enumerated() where !newIDs.contains(object.id) {
            change.deleted.append(.init(id: object.id, index: i))
        }
        sequence = max(newSequence ?? seq, seq)
        results = fetched.map(\.0)
        keys = fetched.map(\.1)
        publish(change)
    }

    private func publish(_ change: FetchResultsChange) {
        guard !change.isEmpty, !cancelled else { return }
        var change = change
        change.inserted.sort { $0.index < $1.index }
        change.updated.sort { $0.index < $1.index }
        change.deleted.sort { $0.index < $1.index }
        deliver(.success(FetchResultsUpdate(results: results, change: change, sequence: sequence)))
    }

    private func names(_ positions: Set<Int>, _ all: [String]) -> [String] {
        positions.sorted().compactMap { $0 < all.count ? all[$0] : nil }
    }

    /// Sort order: the request's sort keys, then object ID.
    private func precedes(_ a: (FetchedObject, [AttributeValue?]), _ b: (FetchedObject, [AttributeValue?])) -> Bool {
        for (i, d) in request.sortDescriptors.enumerated() {
            let order = ValueOrder.compare(a.1[i], b.1[i])
            if order != 0 { return d.ascending ? order < 0 : order > 0 }
        }
        return a.0.id < b.0.id
    }

    /// The entities a predicate reaches through key paths.
    private static func collect(_ predicate: ResolvedPredicate, into names: inout Set<String>) {
        switch predicate {
        case .constant, .objectIDs: break
        case .compare(let path, _, _, _):
            for hop in path.hops { names.formUnion(hop.destination.kindNames) }
        case .exists(let path, let inner):
            for hop in path.hops { names.formUnion(hop.destination.kindNames) }
            names.formUnion(path.toMany.destination.kindNames)
            collect(inner, into: &names)
        case .count(let path, _, _):
            for hop in path.hops { names.formUnion(hop.destination.kindNames) }
            names.formUnion(path.toMany.destination.kindNames)
        case .and(let ps), .or(let ps):
            for p in ps { collect(p, into: &names) }
        case .not(let p):
            collect(p, into: &names)
        }
    }
}
