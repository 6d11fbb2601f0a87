/// Observing fetch requests.
extension ObjectContext {
    /// The results of `request`, then an update after every commit that changes them, as an
    /// `AsyncSequence` of `Sendable` ``FetchResultsUpdate``s (iterate it on any actor):
    ///
    ///     for try await update in try context.observe(request) {
    ///         await MainActor.run { table.show(update.results, animating: update.change) }
    ///     }
    ///
    /// Commits of every context on the same store object are seen at once; commits of other
    /// store objects on the same file and of other processes within the store's poll
    /// interval (SQLite: `SQLiteStore.Configuration.changePollIntervalMilliseconds`, 50 ms by
    /// default). Each iteration starts its own observation, which ends with the iteration.
    /// See ``FetchResultsObserver`` for how changes are computed.
    /// - Throws: ``ModelError``, ``QueryError`` for the request; `StoreError` `.engine` when
    ///   the store cannot be observed (it does not adopt ``ObservableStore``).
    public func observe(_ request: ObjectFetchRequest) throws -> FetchResultsSequence {
        let (store, resolved) = try observable(request)
        return FetchResultsSequence(store: store, request: resolved)
    }

    /// The callback form of ``observe(_:)``: `handler` gets the current results, then each
    /// update, on the observation's own queue, until the returned observation is cancelled
    /// or released (or a store error, delivered as a failure, ends it).
    /// - Throws: as ``observe(_:)``.
    public func observe(
        _ request: ObjectFetchRequest,
        handler: @escaping @Sendable (Result<FetchResultsUpdate, any Error>) -> Void
    ) throws -> FetchResultsObservation {
        let (store, resolved) = try observable(request)
        let observer = FetchResultsObserver(store: store, request: resolved, deliver: handler)
        observer.start()
        return FetchResultsObservation(observer)
    }

    private func observable(_ request: ObjectFetchRequest) throws -> (any ObservableStore, ResolvedFetchRequest) {
        guard let store = store as? any ObservableStore else {
            throw StoreError(.engine, message: "the store (\(type(of: store))) cannot be observed: it does not log its commits")
        }
        return (store, try request.resolved(in: model))
    }
}

/// A running observation (``ObjectContext/observe(_:handler:)``); cancelled by ``cancel()``
/// or when released.
public final class FetchResultsObservation: Sendable {
    private let observer: FetchResultsObserver

    init(_ observer: FetchResultsObserver) { self.observer = observer }

    /// Stops deliveries (an update being delivered may still arrive).
    public func cancel() { observer.cancel() }

    deinit { observer.cancel() }
}

/// The updates of one fetch request (``ObjectContext/observe(_:)``).
public struct FetchResultsSequence: AsyncSequence, Sendable {
    public typealias Element = FetchResultsUpdate
    let store: any ObservableStore
    let request: ResolvedFetchRequest

    public func makeAsyncIterator() -> AsyncThrowingStream<FetchResultsUpdate, any Error>.Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: FetchResultsUpdate.self, throwing: (any Error).self)
        let observer = FetchResultsObserver(store: store, request: request) { result in
            switch result {
            case .success(let update): continuation.yield(update)
            case .failure(let error): continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in observer.cancel() }
        observer.start()
        return stream.makeAsyncIterator()
    }
}
