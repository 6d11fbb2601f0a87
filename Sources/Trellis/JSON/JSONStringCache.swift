/// A small direct-mapped cache of the strings the reader has made, keyed by their
/// UTF-8 bytes (up to 32). Payloads repeat keys and many values (`"id"`, names from a
/// small set); a hit returns the existing `String` (no validation, no allocation, and
/// long strings share their storage), a miss makes the string and remembers it.
///
/// Only strings without escapes go through the cache, so equal bytes mean equal strings.
struct JSONStringCache: ~Copyable {
    struct Entry {
        var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
        /// Byte count of the cached string; -1 for an empty slot.
        var length: Int = -1
        var string: String = ""
    }

    static let maximumLength = 32

    private let entries: UnsafeMutablePointer<Entry>
    private let mask: Int

    /// A cache with `capacity` slots (rounded up to a power of two, at least 8).
    init(capacity: Int) {
        var size = 8
        while size < capacity { size <<= 1 }
        entries = UnsafeMutablePointer<Entry>.allocate(capacity: size)
        entries.initialize(repeating: Entry(), count: size)
        mask = size - 1
    }

    deinit {
        entries.deinitialize(count: mask + 1)
        entries.deallocate()
    }

    /// The bytes `p[0..<count]` (count ≤ 32) as four zero-padded little-endian words.
    /// `available` is how many bytes may be read from `p` (at least `count`).
    @inline(__always)
    static func words(_ p: UnsafePointer<UInt8>, count: Int, available: Int) -> (UInt64, UInt64, UInt64, UInt64) {
        if available >= 32 {
            let raw = UnsafeRawPointer(p)
            @inline(__always) func masked(_ word: UInt64, _ index: Int) -> UInt64 {
                let valid = count &- index &* 8
                if valid >= 8 { return word }
                if valid <= 0 { return 0 }
                return word & ((1 &<< UInt64(valid &* 8)) &- 1)
            }
            return (
                masked(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), 0),
                masked(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self), 1),
                masked(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), 2),
                masked(raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self), 3)
            )
        }
        var w: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &w) { $0.baseAddress?.copyMemory(from: p, byteCount: count) }
        return w
    }

    /// The bytes `p[0..<count]` (count ≤ 8) as one zero-padded little-endian word.
    @inline(__always)
    static func word(_ p: UnsafePointer<UInt8>, count: Int, available: Int) -> UInt64 {
        if available >= 8 {
            let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            return count >= 8 ? word : word & ((1 &<< UInt64(truncatingIfNeeded: count &* 8)) &- 1)
        }
        var w: UInt64 = 0
        withUnsafeMutableBytes(of: &w) { $0.baseAddress?.copyMemory(from: p, byteCount: count) }
        return w
    }

    /// The hash of a string of at most 8 bytes (equal to ``hash(_:count:)`` of its words).
    @inline(__always)
    static func hash(_ w0: UInt64, count: Int) -> UInt64 {
        hash((w0, 0, 0, 0), count: count)
    }

    /// The cached string of at most 8 bytes, or nil.
    @inline(__always)
    func lookup(_ w0: UInt64, count: Int, hash: UInt64) -> String? {
        let entry = entries + Int(truncatingIfNeeded: hash >> 20) & mask
        // Equal lengths of at most 8 bytes: the other words are zero on both sides.
        if entry.pointee.length == count, entry.pointee.w0 == w0 {
            return entry.pointee.string
        }
        return nil
    }

    /// A hash of the words and length; never 0.
    @inline(__always)
    static func hash(_ w: (UInt64, UInt64, UInt64, UInt64), count: Int) -> UInt64 {
        var h = w.0 &* 0x9E37_79B9_7F4A_7C15
        h ^= w.1 &* 0xC2B2_AE3D_27D4_EB4F
        h ^= w.2 &* 0x1656_67B1_9E37_79F9
        h ^= w.3 &* 0x85EB_CA77_C2B2_AE63
        h ^= UInt64(truncatingIfNeeded: count) &* 0x27D4_EB2F_1656_67C5
        h ^= h >> 29
        return h | 1
    }

    /// The cached string for the words, or nil.
    @inline(__always)
    func lookup(_ w: (UInt64, UInt64, UInt64, UInt64), count: Int, hash: UInt64) -> String? {
        let entry = entries + Int(truncatingIfNeeded: hash >> 20) & mask
        if entry.pointee.length == count, entry.pointee.w0 == w.0, entry.pointee.w1 == w.1,
            entry.pointee.w2 == w.2, entry.pointee.w3 == w.3
        {
            return entry.pointee.string
        }
        return nil
    }

    /// Remembers `string` for the words (replacing whatever shared its slot).
    @inline(__always)
    func store(_ string: String, _ w: (UInt64, UInt64, UInt64, UInt64), count: Int, hash: UInt64) {
        let entry = entries + Int(truncatingIfNeeded: hash >> 20) & mask
        entry.pointee.w0 = w.0
        entry.pointee.w1 = w.1
        entry.pointee.w2 = w.2
        entry.pointee.w3 = w.3
        entry.pointee.length = count
        entry.pointee.string = string
    }
}
