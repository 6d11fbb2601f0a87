import Foundation

extension String {
    /// Whether the two strings have the same UTF-8 code units: how JSON compares names
    /// (RFC 8259 §8.3) and SQLite compares text, unlike Swift's `==`, which holds
    /// canonically equivalent strings equal ("é" precomposed, U+00E9, and decomposed,
    /// "e" U+0301). Equal code units imply `==`, so `hashValue` stays consistent.
    /// - Complexity: O(n), a `memcmp` for native strings.
    @inline(__always)
    func hasSameCodeUnits(as other: String) -> Bool {
        // Identical representations hold identical code units: equal small strings (up to
        // 15 UTF-8 bytes, stored inline: keys, ids, most names) and two references to one
        // buffer are settled without a call. Anything else is compared below.
        if MemoryLayout<String>.size == 16,
            withUnsafeBytes(
                of: self,
                { a in
                    withUnsafeBytes(of: other) { b in
                        a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
                            && a.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    }
                })
        {
            return true
        }
        let x = utf8
        let y = other.utf8
        guard x.count == y.count else { return false }
        if x.isEmpty { return true }
        let fast: Bool?? = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 }
        }
        if let fast, let equal = fast { return equal }
        return x.elementsEqual(y)
    }
}
