/// A question for a store (Core Data's fetch request, `NSFetchRequest`): the objects of an
/// entity (and its sub-entities) that match a predicate, in the order of sort descriptors,
/// from `offset`, at most `limit` of them.
///
///     var request = ObjectFetchRequest(entity: "Character",
///                                      predicate: try ObjectPredicate("name BEGINSWITH[c] %@", "bat"),
///                                      sortDescriptors: [ObjectSortDescriptor("name")], limit: 50)
///     let characters = try context.fetch(request)
///     let total = try context.count(request)   // ignores limit and offset
///
/// Results are deterministic: objects that compare equal under every sort descriptor are
/// ordered by object ID, and so are the results of a request without sort descriptors.
/// Every store gives the same answer (one test table runs on each).
///
/// The name is not `FetchRequest`, which SwiftUI already uses.
public struct ObjectFetchRequest: Sendable, Hashable {
    /// The entity's name; its sub-entities' objects are included.
    public var entity: String
    /// The condition (nil: every object).
    public var predicate: ObjectPredicate?
    /// The order, most significant first; ties (and a request without any) by object ID.
    public var sortDescriptors: [ObjectSortDescriptor]
    /// The most objects returned (nil: no limit); counts ignore it.
    public var limit: Int?
    /// Objects skipped from the start of the ordered results; counts ignore it.
    public var offset: Int

    public init(
        entity: String, predicate: ObjectPredicate? = nil, sortDescriptors: [ObjectSortDescriptor] = [],
        limit: Int? = nil, offset: Int = 0
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
    }

    /// The request resolved against `model`: names checked, values coerced to the
    /// attributes' types, regular expressions compiled once to check them.
    /// - Throws: ``ModelError`` `.unknownEntity`; ``QueryError`` naming the column,
    ///   the entity and the key path.
    public func resolved(in model: ObjectModel) throws -> ResolvedFetchRequest {
        let entity = try model.requireEntity(self.entity)
        let resolver = PredicateResolver(model: model)
        let predicate = try self.predicate.map { try resolver.resolve($0, in: entity) } ?? .constant(true)
        var sorts: [ResolvedSortDescriptor] = []
        for descriptor in sortDescriptors { sorts.append(try resolver.resolve(descriptor, in: entity)) }
        if let limit, limit < 0 {
            throw QueryError(
                .invalidRequest, message: "the limit is \(limit); it must be 0 or more (nil: no limit)",
                entity: entity.name)
        }
        guard offset >= 0 else {
            throw QueryError(.invalidRequest, message: "the offset is \(offset); it must be 0 or more", entity: entity.name)
        }
        return ResolvedFetchRequest(entity: entity, predicate: predicate, sortDescriptors: sorts, limit: limit, offset: offset)
    }
}

/// One sort key of a fetch request (Core Data's sort descriptor): an attribute, or an
/// attribute through to-one relationships (`publisher.name`), ascending or descending.
///
/// Order: strings by Unicode code points (UTF-8 bytes, as SQLite's BINARY collation),
/// numbers and dates by value, booleans false before true. Objects without a value
/// (nil, or no destination on the way) come first when ascending and last when descending
/// (SQLite's order; the PostgreSQL store says `NULLS FIRST`/`NULLS LAST` to match).
/// Binary and JSON attributes cannot be sorted by.
public struct ObjectSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    public var keyPath: String
    public var ascending: Bool

    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Parses `name`, `-name` (descending) or `+name`, comma-separated: `-rating,name`.
    /// - Throws: ``QueryError`` `.invalidRequest` for an empty key.
    public static func list(_ text: String) throws -> [ObjectSortDescriptor] {
        var result: [ObjectSortDescriptor] = []
        for (i, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            var key = part.trimmingSpaces()
            var ascending = true
            if key.hasPrefix("-") {
                ascending = false
                key.removeFirst()
            } else if key.hasPrefix("+") {
                key.removeFirst()
            }
            guard !key.isEmpty else {
                throw QueryError(.invalidRequest, message: "sort key \(i + 1) of '\(text)' is empty; write KEY or -KEY, comma-separated")
            }
            result.append(ObjectSortDescriptor(key, ascending: ascending))
        }
        return result
    }

    /// `name` or `-name`.
    public var description: String { (ascending ? "" : "-") + keyPath }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
