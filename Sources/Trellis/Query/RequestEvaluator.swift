import Foundation

/// Runs a ``ResolvedFetchRequest`` over snapshots in memory: ``InMemoryStore``'s query
/// engine, the default of ``StoreSession/fetch(_:)`` for stores that do not compile
/// requests, and the reference the SQL compilation is tested against (the same table of
/// predicates runs on every store).
///
/// Destinations of key paths are looked up through `lookup` (cached per evaluator).
/// - Complexity: O(n · p) for n candidates and a predicate of p comparisons (to-many
///   quantifiers: times the destinations), plus O(m log m) to sort m matches.
public final class RequestEvaluator {
    private let request: ResolvedFetchRequest
    private let lookup: (ObjectID) throws -> ObjectSnapshot?
    private var cache: [ObjectID: ObjectSnapshot?] = [:]
    private var matchers: [MatcherKey: PredicateTextMatcher] = [:]

    /// - Parameter lookup: the stored object with an ID (nil when there is none).
    public init(_ request: ResolvedFetchRequest, lookup: @escaping (ObjectID) throws -> ObjectSnapshot?) {
        self.request = request
        self.lookup = lookup
    }

    /// The candidates (objects of the request's entity and sub-entities) that match, sorted,
    /// with offset and limit applied.
    public func run(_ candidates: [ObjectSnapshot]) throws -> [ObjectSnapshot] {
        var matched: [ObjectSnapshot] = []
        for snapshot in candidates where try matches(snapshot) { matched.append(snapshot) }
        try sort(&matched)
        let start = min(max(request.offset, 0), matched.count)
        let end = request.limit.map { start + min(max($0, 0), matched.count - start) } ?? matched.count
        return Array(matched[start..<end])
    }

    /// The number of candidates that match (limit and offset ignored).
    public func count(_ candidates: [ObjectSnapshot]) throws -> Int {
        var n = 0
        for snapshot in candidates where try matches(snapshot) { n += 1 }
        return n
    }

    /// Whether `snapshot` satisfies the request's predicate.
    public func matches(_ snapshot: ObjectSnapshot) throws -> Bool {
        try evaluate(request.predicate, snapshot)
    }

    /// Sorts by the request's sort descriptors, then by object ID.
    public func sort(_ snapshots: inout [ObjectSnapshot]) throws {
        let descriptors = request.sortDescriptors
        guard !descriptors.isEmpty else {
            snapshots.sort { $0.id < $1.id }
            return
        }
        var keyed: [(keys: [AttributeValue?], snapshot: ObjectSnapshot)] = []
        keyed.reserveCapacity(snapshots.count)
        for s in snapshots { keyed.append((try descriptors.map { try value(of: $0.keyPath, s) }, s)) }
        keyed.sort { a, b in
            for (i, d) in descriptors.enumerated() {
                let order = ValueOrder.compare(a.keys[i], b.keys[i])
                if order != 0 { return d.ascending ? order < 0 : order > 0 }
            }
            return a.snapshot.id < b.snapshot.id
        }
        snapshots = keyed.map(\.snapshot)
    }

    /// The sort key values of `snapshot` (one per sort descriptor).
    public func sortKeys(of snapshot: ObjectSnapshot) throws -> [AttributeValue?] {
        try request.sortDescriptors.map { try value(of: $0.keyPath, snapshot) }
    }

    // MARK: - Evaluation

    private func evaluate(_ predicate: ResolvedPredicate, _ s: ObjectSnapshot) throws -> Bool {
        switch predicate {
        case .constant(let b): return b
        case .and(let ps):
            for p in ps where !(try evaluate(p, s)) { return false }
            return true
        case .or(let ps):
            for p in ps where try evaluate(p, s) { return true }
            return false
        case .not(let p): return !(try evaluate(p, s))
        case .objectIDs(let ids): return ids.contains(s.id)
        case .compare(let path, let op, let values, let options):
            if case .object = path.target { return false }
            let value = try self.value(of: path, s)
            return try compare(value, op, values, options)
        case .exists(let path, let inner):
            for id in try destinations(of: path, s) {
                guard let d = try object(id) else { continue }
                if try evaluate(inner, d) { return true }
            }
            return false
        case .count(let path, let op, let counts):
            let n = Int64(try destinations(of: path, s).count)
            if op == .in { return counts.contains(n) }
            guard let first = counts.first, op != .between || counts.count == 2 else { return false }
            return ValueOrder.holds(
                op, ValueOrder.compare(.integer(n), .integer(first)),
                n: .integer(n), values: counts.map { .integer($0) })
        }
    }

    private func compare(
        _ value: AttributeValue?, _ op: PredicateOperator, _ values: [AttributeValue?],
        _ options: PredicateOptions
    ) throws -> Bool {
        if op != .in, values.isEmpty || (op == .between && values.count != 2) { return false }
        switch op {
        case .equal:
            guard let operand = values[0] else { return value == nil }
            guard let value else { return false }
            if !options.isEmpty, case .string(let text) = value, case .string(let folded) = operand {
                return try matcher(.equal, folded, options).matches(text)
            }
            return value == operand
        case .notEqual:
            guard let operand = values[0] else { return value != nil }
            guard let value else { return true }
            return value != operand
        case .in:
            guard let value else { return false }
            return values.contains { $0 == value }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let text)? = value, case .string(let operand)? = values[0] else { return false }
            return try matcher(op, operand, options).matches(text)
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between:
            guard let value else { return false }
            return ValueOrder.holds(op, ValueOrder.compare(value, values[0]), n: value, values: values)
        }
    }

    private func matcher(_ op: PredicateOperator, _ operand: String, _ options: PredicateOptions) throws -> PredicateTextMatcher {
        let key = MatcherKey(op: op, operand: operand, options: options)
        if let m = matchers[key] { return m }
        let m = try PredicateTextMatcher(op: op, operand: operand, options: options)
        matchers[key] = m
        return m
    }

    /// The value at the end of `path` (nil when a hop has no destination).
    func value(of path: ResolvedKeyPath, _ s: ObjectSnapshot) throws -> AttributeValue? {
        var current = s
        for hop in path.hops {
            guard hop.index < current.relationships.count, let id = current.relationships[hop.index].first,
                let next = try object(id)
            else { return nil }
            current = next
        }
        switch path.target {
        case .attribute(_, let index):
            return index < current.attributes.count ? current.attributes[index] : nil
        case .toOne(_, let index):
            guard index < current.relationships.count, let id = current.relationships[index].first else { return nil }
            return .integer(id.primaryKey)
        case .object:
            return nil
        }
    }

    private func destinations(of path: ResolvedToManyPath, _ s: ObjectSnapshot) throws -> [ObjectID] {
        var current = s
        for hop in path.hops {
            guard hop.index < current.relationships.count, let id = current.relationships[hop.index].first,
                let next = try object(id)
            else { return [] }
            current = next
        }
        let index = path.toMany.index
        return index < current.relationships.count ? current.relationships[index] : []
    }

    private func object(_ id: ObjectID) throws -> ObjectSnapshot? {
        if let cached = cache[id] { return cached }
        let found = try lookup(id)
        cache[id] = found
        return found
    }

    private struct MatcherKey: Hashable {
        let op: PredicateOperator
        let operand: String
        let options: PredicateOptions
    }
}

/// The order of attribute values shared by every store's sorting and comparisons: nil
/// first; strings by UTF-8 bytes; numbers, dates and booleans by value; decimals by value;
/// UUIDs and URIs by their text; binary by bytes. Values of different cases (never
/// compared after resolution) order by case.
public enum ValueOrder {
    /// -1, 0 or 1.
    public static func compare(_ a: AttributeValue?, _ b: AttributeValue?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let a?, let b?): return compare(a, b)
        }
    }

    static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        func bytes(_ x: some Sequence<UInt8>, _ y: some Sequence<UInt8>) -> Int {
            var i = x.makeIterator()
            var j = y.makeIterator()
            while true {
                switch (i.next(), j.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
                }
            }
        }
        switch (a, b) {
        case (.string(let x), .string(let y)): return bytes(x.utf8, y.utf8)
        case (.integer(let x), .integer(let y)): return order(x, y)
        case (.double(let x), .double(let y)): return order(x, y)
        case (.decimal(let x), .decimal(let y)): return order(x, y)
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        case (.date(let x), .date(let y)): return order(x.timeIntervalSince1970, y.timeIntervalSince1970)
        case (.uuid(let x), .uuid(let y)): return bytes(x.uuidString.lowercased().utf8, y.uuidString.lowercased().utf8)
        case (.uri(let x), .uri(let y)): return bytes(x.absoluteString.utf8, y.absoluteString.utf8)
        case (.binary(let x), .binary(let y)): return bytes(x, y)
        default: return order(rank(a), rank(b))
        }
    }

    private static func rank(_ v: AttributeValue) -> Int {
        switch v {
        case .string: return 0
        case .integer: return 1
        case .decimal: return 2
        case .double: return 3
        case .bool: return 4
        case .date: return 5
        case .binary: return 6
        case .uuid: return 7
        case .uri: return 8
        case .json: return 9
        }
    }

    /// Whether ordering operator `op` holds for a comparison result (`order` = compare(n, values[0])).
    static func holds(_ op: PredicateOperator, _ order: Int, n: AttributeValue, values: [AttributeValue?]) -> Bool {
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        case .between: return order >= 0 && compare(n, values[1]) <= 0
        case .in: return values.contains { $0 == n }
        default: return false
        }
    }
}
