/// The walk over one element that phases 1 and 3 both take.
///
/// Phase 1 (``prepare(_:_:key:)``) appends one ``Prepared`` per JSON object or bare
/// identifier met; phase 3 (``apply(_:)``) takes them back one by one, in the same order.
/// The two cannot get out of step: both visit a JSON object's relationships through
/// ``walkRelationships(of:_:_:)`` (the walked entity's mapped relationships, in the plan's
/// order, skipping missing keys) and a to-many's items in array order, each inside
/// ``withStep(_:_:)``, which pushes the path step around the work and pops it whatever
/// happens (as swift-foundation's `JSONDecoderImpl.with(path:perform:)` does). Each prepared
/// element also records the entity it was requested as and where its subtree ends
/// (``Prepared/end``); phase 3 checks both.
extension Importer {
    /// Runs `body` with `step` on the path (for errors and diagnostics), popped afterwards.
    @inline(__always)
    func withStep<T>(_ step: PathStep, _ body: () throws -> T) rethrows -> T {
        steps.append(step)
        defer { steps.removeLast() }
        return try body()
    }

    /// Phase 1's visit of each element of a to-many's array, with its index on the path,
    /// except `null` elements, which are skipped and counted (``skipNullElement()``); phase 3
    /// skips the same elements (``destinations(_:_:of:current:)``).
    @inline(__always)
    func walkElements(of items: [JSONValue], _ visit: (JSONValue) throws -> Void) rethrows {
        for (i, item) in items.enumerated() {
            if case .null = item {
                withStep(.index(i)) { skipNullElement() }
                continue
            }
            try withStep(.index(i)) { try visit(item) }
        }
    }

    /// Visits each mapped relationship of `plan` whose key `json` has (null included), with
    /// its key path on the path.
    @inline(__always)
    func walkRelationships(of json: JSONObject, _ plan: EntityPlan, _ visit: (RelationshipPlan, JSONLookup) throws -> Void) rethrows {
        for r in plan.relationships {
            let value = r.lookup(in: json)
            if case .missing = value { continue }
            try withStep(.keyPath(r.keyPath)) { try visit(r, value) }
        }
    }
}

/// One step of the path from an element to the value being imported.
enum PathStep {
    case keyPath(JSONKeyPath)
    case index(Int)
}
