/// Predicts object keys from the shape of the objects read before: in an array of
/// records, the k-th key of an object at some nesting depth is almost always the k-th
/// key of the previous object at that depth. A predicted key is confirmed by comparing
/// at most 16 input bytes and checking the closing quote, which skips scanning,
/// hashing and the string cache for it.
///
/// Only keys of at most 16 bytes written without escapes are remembered, so equal
/// bytes followed by a quote mean the same, already validated, key.
struct JSONKeyPredictor: ~Copyable {
    struct Slot {
        var w0: UInt64 = 0, w1: UInt64 = 0
        var m0: UInt64 = 0, m1: UInt64 = 0
        /// Byte count of the key; -1 for an empty slot.
        var length: Int = -1
        var fingerprint: UInt64 = 0
        var key: String = ""
    }

    static let maximumLength = 16
    static let positions = 16
    static let depths = 8

    private let slots: UnsafeMutablePointer<Slot>

    init() {
        let count = JSONKeyPredictor.positions * JSONKeyPredictor.depths
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        slots.initialize(repeating: Slot(), count: count)
    }

    deinit {
        slots.deinitialize(count: JSONKeyPredictor.positions * JSONKeyPredictor.depths)
        slots.deallocate()
    }

    /// The slot for member `index` of an object at `depth`, or nil when not tracked.
    @inline(__always)
    func slot(depth: Int, index: Int) -> UnsafeMutablePointer<Slot>? {
        guard index < JSONKeyPredictor.positions else { return nil }
        return slots + ((depth & (JSONKeyPredictor.depths - 1)) &* JSONKeyPredictor.positions &+ index)
    }

    /// Whether the key text at `p` (just after the opening quote, with at least 17
    /// readable bytes) is the slot's key followed by its closing quote.
    @inline(__always)
    static func matches(_ slot: UnsafeMutablePointer<Slot>, at p: UnsafePointer<UInt8>) -> Bool {
        let length = slot.pointee.length
        guard length >= 0 else { return false }
        let raw = UnsafeRawPointer(p)
        return raw.loadUnaligned(as: UInt64.self) & slot.pointee.m0 == slot.pointee.w0
            && raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) & slot.pointee.m1 == slot.pointee.w1
            && p[length] == UInt8(ascii: "\"")
    }

    /// Remembers `key`, whose `length` bytes at `p` had no escapes.
    @inline(__always)
    static func remember(_ key: String, fingerprint: UInt64, bytes p: UnsafePointer<UInt8>, length: Int, available: Int, in slot: UnsafeMutablePointer<Slot>) {
        guard length <= maximumLength else {
            slot.pointee.length = -1
            return
        }
        var w: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &w) { $0.baseAddress?.copyMemory(from: p, byteCount: min(length, available)) }
        slot.pointee.w0 = w.0
        slot.pointee.w1 = w.1
        slot.pointee.m0 = length >= 8 ? ~0 : (1 &<< UInt64(length &* 8)) &- 1
        slot.pointee.m1 = length >= 16 ? ~0 : (length <= 8 ? 0 : (1 &<< UInt64((length &- 8) &* 8)) &- 1)
        slot.pointee.length = length
        slot.pointee.fingerprint = fingerprint
        slot.pointee.key = key
    }
}
