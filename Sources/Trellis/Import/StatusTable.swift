/// The report status of each object an import touched (0 inserted, 1 updated, 2 unchanged),
/// by primary key: a byte array for the dense keys stores hand out (1, 2, 3, …), a
/// dictionary for the rest. One byte per object instead of a hash table entry.
struct StatusTable {
    /// Per key: 0 for none, else the code + 1, with ``topLevelFlag`` when the object was
    /// a top-level element of the import.
    var dense: [UInt8] = []
    var sparse: [Int64: UInt8] = [:]
    private static let denseLimit: Int64 = 1 << 28
    private static let topLevelFlag: UInt8 = 0x80

    @inline(__always)
    func entry(_ key: Int64) -> UInt8 {
        if key > 0 && key < StatusTable.denseLimit {
            return Int(key) < dense.count ? dense[Int(key)] : 0
        }
        return sparse[key] ?? 0
    }

    @inline(__always)
    mutating func setEntry(_ value: UInt8, _ key: Int64) {
        if key > 0 && key < StatusTable.denseLimit {
            let i = Int(key)
            if i >= dense.count { dense += [UInt8](repeating: 0, count: max(i + 1 - dense.count, dense.count)) }
            dense[i] = value
        } else {
            sparse[key] = value
        }
    }

    @inline(__always)
    func code(of key: Int64) -> UInt8? {
        let stored = entry(key) & ~StatusTable.topLevelFlag
        return stored == 0 ? nil : stored - 1
    }

    @inline(__always)
    mutating func set(_ code: UInt8, for key: Int64) {
        setEntry((entry(key) & StatusTable.topLevelFlag) | (code + 1), key)
    }

    /// Whether the object was a top-level element of an earlier batch (``markTopLevel(_:)``).
    @inline(__always)
    func isTopLevel(_ key: Int64) -> Bool { entry(key) & StatusTable.topLevelFlag != 0 }

    @inline(__always)
    mutating func markTopLevel(_ key: Int64) { setEntry(entry(key) | StatusTable.topLevelFlag, key) }
}
