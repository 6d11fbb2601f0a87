/// Recently read small flat objects, keyed by their exact text (at most 64 bytes):
/// payloads repeat small objects (`{"id":"16","name":"Valiant 1"}` in every record that
/// names that publisher). The same text always reads as the same value, so a repeated
/// object reuses the stored value: its member array is shared (copy on write, invisible
/// to users) instead of allocated again, which saves both time and memory.
struct JSONObjectCache: ~Copyable {
    struct Entry {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        /// Byte count of the text; -1 for an empty slot.
        var length: Int = -1
        var value: JSONValue = .null
    }

    typealias Words = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    static let maximumLength = 64

    private let entries: UnsafeMutablePointer<Entry>
    private let mask: Int

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

    /// The text `p[0..<count]` (count ≤ 64) as eight zero-padded words.
    @inline(__always)
    static func words(_ p: UnsafePointer<UInt8>, count: Int) -> Words {
        var w: Words = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &w) { $0.baseAddress?.copyMemory(from: p, byteCount: count) }
        return w
    }

    @inline(__always)
    static func hash(_ w: Words, count: Int) -> UInt64 {
        var h = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ w.0) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.1) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.2) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.3) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.4) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.5) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.6) &* 0xC2B2_AE3D_27D4_EB4F
        h = (h ^ w.7) &* 0xC2B2_AE3D_27D4_EB4F
        return h ^ (h >> 31)
    }

    @inline(__always)
    private func entry(_ hash: UInt64) -> UnsafeMutablePointer<Entry> {
        entries + (Int(truncatingIfNeeded: hash >> 24) & mask)
    }

    /// The value stored for exactly this text, or nil.
    @inline(__always)
    func lookup(_ w: Words, count: Int, hash: UInt64) -> JSONValue? {
        let e = entry(hash)
        guard e.pointee.length == count else { return nil }
        let s = e.pointee.words
        guard s.0 == w.0, s.1 == w.1, s.2 == w.2, s.3 == w.3, s.4 == w.4, s.5 == w.5, s.6 == w.6, s.7 == w.7 else { return nil }
        return e.pointee.value
    }

    /// Remembers `value` as the reading of this text.
    @inline(__always)
    func store(_ value: JSONValue, _ w: Words, count: Int, hash: UInt64) {
        let e = entry(hash)
        e.pointee.words = w
        e.pointee.length = count
        e.pointee.value = value
    }
}
