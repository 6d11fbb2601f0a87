/// What an import did (or, for a dry run, would do).
public struct ImportReport: Sendable, Hashable {
    /// Per-entity object counts. Each object is counted once per import, under its
    /// concrete entity: inserted (new), updated (a value or link it stores changed),
    /// unchanged (present in the payload, nothing to write), deleted (by the deletion scope
    /// and its cascades).
    public struct Counts: Sendable, Hashable, CustomStringConvertible {
        /// New objects.
        public var inserted = 0
        /// Existing objects with at least one changed value or link.
        public var updated = 0
        /// Existing objects in the payload with nothing to write.
        public var unchanged = 0
        /// Objects deleted by the deletion scope (and its cascades).
        public var deleted = 0

        /// Counts with these values (all zero by default).
        public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, deleted: Int = 0) {
            self.inserted = inserted
            self.updated = updated
            self.unchanged = unchanged
            self.deleted = deleted
        }

        /// `inserted 2, updated 1, unchanged 0, deleted 0`.
        public var description: String {
            "inserted \(inserted), updated \(updated), unchanged \(unchanged), deleted \(deleted)"
        }
    }

    /// The object of each top-level element, in input order (a repeated identity repeats
    /// its ID; a skipped `null` element has none). Empty when ``ImportOptions/reportsObjectIDs`` is off. In a dry run, new
    /// objects have the temporary IDs they had during the import; they name no object after.
    public var objectIDs: [ObjectID] = []
    /// Counts per concrete entity name.
    public var counts: [String: Counts] = [:]
    /// Objects deleted by the deletion scope (with cascades), or, for a deletion dry run,
    /// the objects that would be deleted (cascades not included), in object ID order.
    public var deletedObjectIDs: [ObjectID] = []
    /// Things worth knowing that did not stop the import (at most 100, then a summary).
    public var diagnostics: [ImportDiagnostic] = []
    /// The `null` elements of the top-level collection and of relationship arrays that the
    /// import skipped, as Groot does (`[{"id": 1}, null]` imports one object; `"powers":
    /// [4, null]` links one power), each also a ``ImportDiagnostic/Code/nullElementSkipped``
    /// diagnostic with its path while there are at most 100 diagnostics; this count is exact.
    public var nullElementsSkipped = 0
    /// `true` when nothing was kept (``ImportOptions/dryRun``).
    public var isDryRun = false
    /// Top-level elements read.
    public var elementCount = 0

    /// An empty report.
    public init() {}

    /// The counts of `entity` (zeros when the import did not touch it).
    public func counts(for entity: String) -> Counts { counts[entity] ?? Counts() }
}

/// A remark about an import that did not stop it.
public struct ImportDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The kind of remark; extensible.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name (stable across versions).
        public let rawValue: String
        /// A code with this name (for codes defined outside Trellis).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The same identity appeared more than once; the objects were merged, last value winning.
        public static let duplicateIdentity = Code(rawValue: "duplicateIdentity")
        /// An identifier named an object that does not exist: a placeholder was created.
        public static let placeholderCreated = Code(rawValue: "placeholderCreated")
        /// A `null` element of the top-level collection or of a relationship array was skipped
        /// (``ImportReport/nullElementsSkipped`` counts them all).
        public static let nullElementSkipped = Code(rawValue: "nullElementSkipped")
        /// More diagnostics were left out.
        public static let truncated = Code(rawValue: "truncated")

        /// Matches a diagnostic with this code, for `switch` patterns.
        public static func ~= (code: Code, diagnostic: ImportDiagnostic) -> Bool { diagnostic.code == code }
    }

    /// What went wrong.
    public let code: Code
    /// Where in the payload (nil for a summary).
    public let path: JSONPath?
    /// What happened.
    public let message: String

    /// A diagnostic of `code` at `path` (nil for a summary).
    public init(code: Code, path: JSONPath?, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// `$[3].id: message`.
    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}
