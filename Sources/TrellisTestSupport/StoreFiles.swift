import Foundation

extension TestStore {
    /// A checksum of the store's files as bytes (the database file, then its `-wal` and
    /// `-journal` files when present; FNV-1a, 64 bits), or nil for a store without files.
    /// "The store is byte for byte as before" is `fileChecksum()` before == after, next to
    /// `dump()` before == after (which every kind of store supports).
    public func fileChecksum() throws -> String? {
        guard let directory else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for suffix in ["", "-wal", "-journal"] {
            let url = directory.appendingPathComponent("store.sqlite" + suffix)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            for byte in try Data(contentsOf: url) {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            hash = (hash ^ 0xff) &* 0x100_0000_01b3  // file boundary
        }
        return String(hash, radix: 16)
    }
}
