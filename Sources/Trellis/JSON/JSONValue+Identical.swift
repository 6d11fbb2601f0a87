/// Strict sameness of JSON values, for skipping work whose result depends only on the value.
extension JSONValue {
    /// `true` when the two values are the same JSON in every respect a conversion can see:
    /// same kind; numbers with the same storage (`Int64`, `Double` bits or literal text, so
    /// `1` and `1.0` differ, unlike ``==(_:_:)``); strings and keys with the same UTF-8 code
    /// units; arrays element by element; objects member by member *in order*.
    ///
    /// Stricter than `==` (never `true` where `==` is `false`); a `false` may be spurious
    /// (objects with the same members in another order), so use it only to skip work.
    ///
    ///     JSONValue.number(JSONNumber(1)).isIdentical(to: .number(JSONNumber(text: "1.0")!))   // false
    ///
    /// - Complexity: O(n) in the values' size; no allocation.
    func isIdentical(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a.isIdentical(to: b)
        case (.string(let a), .string(let b)): return a.hasSameCodeUnits(as: b)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            for i in a.indices where !a[i].isIdentical(to: b[i]) { return false }
            return true
        case (.object(let a), .object(let b)): return a.isIdentical(to: b)
        default: return false
        }
    }
}

extension JSONObject {
    /// `true` when both objects have the same keys in the same order with identical values
    /// (``JSONValue/isIdentical(to:)``).
    /// - Complexity: O(n) in the objects' size; no allocation.
    func isIdentical(to other: JSONObject) -> Bool {
        guard count == other.count else { return false }
        let sameKeys = hasSameShape(as: other)
        for i in 0..<count {
            guard sameKeys || key(at: i).hasSameCodeUnits(as: other.key(at: i)),
                values[i].isIdentical(to: other.values[i])
            else { return false }
        }
        return true
    }
}

extension JSONNumber {
    /// `true` when both numbers have the same storage: the same `Int64`, the same `Double`
    /// bit pattern, or the same literal text.
    func isIdentical(to other: JSONNumber) -> Bool {
        switch (storage, other.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.text(let a), .text(let b)): return a.hasSameCodeUnits(as: b)
        default: return false
        }
    }
}
