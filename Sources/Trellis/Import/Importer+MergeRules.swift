/// Merge rules: what a JSON object does to the object it resolved to.
///
/// - An attribute's key missing leaves the value as it is; `null` clears it (leaves it,
///   under ``NullPolicy/ignore``), except a required attribute's, which null cannot clear.
/// - A relationship's key missing leaves its links; `null` empties them (leaves them, under
///   ``NullPolicy/ignore``), even an appending to-many's; a value replaces them, or, for a
///   to-many with the `append` merge policy, is added after them without repeats.
/// - A to-many's destinations keep their first occurrence.
/// - A `null` element of a relationship's array or of the top-level collection is skipped,
///   as Groot skips it, and counted (``ImportReport/nullElementsSkipped``, a
///   `.nullElementSkipped` diagnostic with its path): `"powers": [4, null]` links power 4.
extension Importer {
    /// Records a skipped `null` element at the current path.
    func skipNullElement() {
        report.nullElementsSkipped += 1
        diagnose(.nullElementSkipped, "null element skipped")
    }

    /// What the JSON sets attribute `a` of an object of `info` to: nil leaves it as it is (a
    /// missing key, or null under `nullPolicy == .ignore`); `.some(nil)` clears it (null);
    /// otherwise the identity value prepared in phase 1 (an attribute of the identity looked
    /// up) or the JSON value converted.
    @inline(__always)
    func incomingValue(
        _ a: AttributePlan, _ json: JSONObject, _ info: EntityInfo, _ p: Prepared,
        _ requested: EntityInfo
    ) throws -> AttributeValue?? {
        switch a.lookup(in: json) {
        case .missing:
            return nil
        case .null:
            return options.nullPolicy == .ignore ? nil : .some(nil)
        case .present(let v):
            if a.identityPosition >= 0, let identity = p.identity, p.walk.namespace == info.namespace {
                switch identity {
                case .single(let value): return value
                case .composite(let values): return values[a.identityPosition]
                }
            }
            return try convert(v, a, info.entity, keyPath: a.keyPath)
        }
    }

    /// Merges the JSON's attributes into `values` (the values of `object`); records in `given`
    /// (when not empty) the attributes the JSON sets. Returns whether a value changed.
    /// - Throws: `.missingRequiredValue` for a null that would clear a required attribute of
    ///   a full object; conversion errors.
    func mergeAttributes(
        _ plan: EntityPlan, _ json: JSONObject, into values: inout [AttributeValue?], of object: ManagedObject,
        _ p: Prepared, _ requested: EntityInfo, given: inout [Bool]
    ) throws -> Bool {
        var changed = false
        let records = !given.isEmpty
        for a in plan.attributes {
            guard let new = try incomingValue(a, json, object.info, p, requested) else { continue }
            if records { given[a.index] = true }
            if new == nil, !a.isOptional, !object.isPlaceholder, values[a.index] != nil {
                throw fail(
                    .missingRequiredValue, a.keyPath, object.entity.name, a.name, .null,
                    "\(object.entity.name).\(a.name) is required; null cannot clear it")
            }
            if values[a.index] != new {
                values[a.index] = new
                changed = true
            }
        }
        return changed
    }

    /// `true` when merging the JSON's attributes into a stored snapshot's `attributes` would
    /// change nothing (the test of ``mergeAttributes(_:_:into:of:_:_:given:)``).
    func attributesMatch(
        _ attributes: [AttributeValue?], _ info: EntityInfo, _ plan: EntityPlan, _ json: JSONObject,
        _ p: Prepared, _ requested: EntityInfo
    ) throws -> Bool {
        for a in plan.attributes {
            guard let new = try incomingValue(a, json, info, p, requested) else { continue }
            if attributes[a.index] != new { return false }
        }
        return true
    }

    /// What an element sets a relationship to: `ids` in place of the current links, or after
    /// them (`appends`: an appending to-many given an array).
    struct NewLinks {
        let ids: [ObjectID]
        let appends: Bool

        /// The links a relationship holding `current` gets.
        func applied(to current: [ObjectID]) -> [ObjectID] {
            guard appends, !current.isEmpty else { return ids }
            let present = Set(current)
            return current + ids.filter { !present.contains($0) }
        }
    }

    /// The links a `null` gives a relationship: none (``NullPolicy/clear``), or nil, which
    /// leaves them as they are (``NullPolicy/ignore``).
    var linksForNull: NewLinks? { options.nullPolicy == .ignore ? nil : NewLinks(ids: [], appends: false) }

    /// A to-many's new links: `ids` without repeats, first occurrence kept; after the current
    /// ones when `r` appends.
    func toManyLinks(_ ids: [ObjectID], _ r: RelationshipPlan) -> NewLinks {
        NewLinks(ids: unique(ids), appends: r.append)
    }

    /// `true` when `links` leave a relationship holding `current` as it is (an unordered
    /// to-many compares members).
    func linksUnchanged(_ current: [ObjectID], _ links: NewLinks, _ r: RelationshipPlan, _ info: EntityInfo) -> Bool {
        context.linksEqual(current, links.applied(to: current), unorderedToMany: r.isToMany && !info.relationships[r.slot].isOrdered)
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
}
