import Trellis

extension Array where Element == ObjectID {
    /// Inserts `id` keeping the array sorted (``ObjectID`` order); nothing if present.
    /// O(1) for an ID after the last one (new keys are the largest), O(n) otherwise.
    mutating func insertSorted(_ id: ObjectID) {
        if let last, last < id {
            append(id)
            return
        }
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < id { low = mid + 1 } else { high = mid }
        }
        if low < count, self[low] == id { return }
        insert(id, at: low)
    }
}
