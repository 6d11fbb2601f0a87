import Foundation
import Testing
import Trellis
import TrellisTestSupport

/// The payloads of the crash-safety and concurrency tests: `Record`s with an integer
/// identity, a version string, a name, a score and a to-one to one of ten shared
/// `Category`s, given nested in every record with the same version:
///
///     {"id":42,"version":"v007","name":"record 42","score":294,"category":{"id":2,"version":"v007"}}
///
/// Every import writes one version (`v007`) into every record and category it holds, so
/// a store in which two versions mix, or in which a record and its category disagree,
/// shows an import that was applied in part.
struct RecordsWorkload {
    static let modelFile = """
        {"format": "trellis-model", "formatVersion": 1,
         "entities": [
          {"name": "Record", "identityAttributes": ["id"],
           "attributes": [
             {"name": "id", "type": "integer64", "jsonKeyPath": "id"},
             {"name": "version", "type": "string", "jsonKeyPath": "version"},
             {"name": "name", "type": "string", "jsonKeyPath": "name"},
             {"name": "score", "type": "integer64", "jsonKeyPath": "score"}],
           "relationships": [{"name": "category", "destination": "Category", "inverse": "records", "jsonKeyPath": "category"}]},
          {"name": "Category", "identityAttributes": ["id"],
           "attributes": [{"name": "id", "type": "integer64", "jsonKeyPath": "id"},
                          {"name": "version", "type": "string", "jsonKeyPath": "version"}],
           "relationships": [{"name": "records", "destination": "Record", "inverse": "category", "toMany": true}]}
         ]}
        """
    static let categoryCount = 10

    /// Records `0..<capacity` as text with version `v000`, each followed by `,\n`.
    private let template: [UInt8]
    /// Where record `i` starts in ``template``.
    private let starts: [Int]
    /// Where the three digits of record `i`'s two versions are in ``template`` (two per record).
    private let versionOffsets: [Int]

    /// A workload of at most `capacity` records.
    init(capacity: Int) {
        var text: [UInt8] = []
        text.reserveCapacity(capacity * 100)
        var starts: [Int] = []
        var versionOffsets: [Int] = []
        starts.reserveCapacity(capacity + 1)
        versionOffsets.reserveCapacity(2 * capacity)
        for id in 0..<capacity {
            starts.append(text.count)
            text.append(contentsOf: #"{"id":\#(id),"version":"v"#.utf8)
            versionOffsets.append(text.count)
            text.append(
                contentsOf: #"000","name":"record \#(id)","score":\#(id * 7),"category":{"id":\#(id % RecordsWorkload.categoryCount),"version":"v"#.utf8)
            versionOffsets.append(text.count)
            text.append(contentsOf: "000\"}},\n".utf8)
        }
        starts.append(text.count)
        template = text
        self.starts = starts
        self.versionOffsets = versionOffsets
    }

    /// `v007`.
    static func versionText(_ version: Int) -> String {
        precondition((0...999).contains(version))
        return "v" + String(repeating: "0", count: 3 - String(version).count) + String(version)
    }

    /// A JSON array of the records `ids`, all with version `version` (0...999).
    func payload(_ ids: Range<Int>, version: Int) -> Data {
        precondition(ids.lowerBound >= 0 && ids.upperBound < starts.count && !ids.isEmpty)
        let digits = Array(RecordsWorkload.versionText(version).utf8.dropFirst())
        let begin = starts[ids.lowerBound]
        // Without the last record's ",\n".
        var bytes = [UInt8]("[".utf8) + template[begin..<(starts[ids.upperBound] - 2)] + [UInt8]("]\n".utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for offset in versionOffsets[(2 * ids.lowerBound)..<(2 * ids.upperBound)] {
                let at = offset - begin + 1
                buffer[at] = digits[0]
                buffer[at + 1] = digits[1]
                buffer[at + 2] = digits[2]
            }
        }
        return Data(bytes)
    }

    /// The compact JSON `trellis export` writes for record `id` at `version`.
    static func exportedRecord(_ id: Int, version: Int) -> String {
        #"{"id":\#(id),"version":"\#(versionText(version))","name":"record \#(id)","score":\#(id * 7),"category":\#(id % categoryCount)}"#
    }

    // MARK: - Reading a store with sqlite3

    /// What the store holds, read with the `sqlite3` shell (independently of Trellis): the
    /// record count, distinct ids, id range; the count per record version; the records whose
    /// every column matches the payload of their version (category linked, same version);
    /// the count per category version.
    static let stateQuery = """
        SELECT count(*), count(DISTINCT "id"), min("id"), max("id") FROM "Record";
        SELECT "version", count(*) FROM "Record" GROUP BY "version";
        SELECT count(*) FROM "Record" AS r JOIN "Category" AS c ON c."_pk" = r."category"
          WHERE c."id" = r."id" % 10 AND c."version" = r."version" AND r."name" = 'record ' || r."id"
            AND r."score" = r."id" * 7 AND r."_placeholder" = 0 AND c."_placeholder" = 0;
        SELECT "version", count(*) FROM "Category" GROUP BY "version";
        """

    static func state(of store: URL) throws -> String {
        try SQLiteShell.query(store, stateQuery)
    }

    /// ``stateQuery``'s result for a store holding exactly records `0..<count` at `version`.
    static func expectedState(count: Int, version: Int) -> String {
        let v = versionText(version)
        return "\(count)|\(count)|0|\(count - 1)\n\(v)|\(count)\n\(count)\n\(v)|\(categoryCount)"
    }

    /// Counts per entity from `trellis import --report json`, as
    /// `Record 100 100000 0 0, Category 0 10 0 0` (inserted, updated, unchanged, deleted).
    static func counts(inReport stdout: String) -> String {
        guard let report = try? JSONReader.parse(stdout) else { return "not a JSON report: \(stdout)" }
        return ["Record", "Category"].map { entity in
            entity + " "
                + ["inserted", "updated", "unchanged", "deleted"].map { key in
                    report["entities"]?[entity]?[key]?.intValue.map(String.init) ?? "-"
                }.joined(separator: " ")
        }.joined(separator: ", ")
    }
}
