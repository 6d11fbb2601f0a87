/// A coding path kept as a parent chain, built into `[CodingKey]` only when a container
/// or an error asks for it (as swift-foundation's `JSONDecoder` keeps its path nodes).
///
/// Appending costs one small allocation; reading ``keys`` walks the chain.
indirect enum CodablePath {
    case root
    case key(any CodingKey, CodablePath)
    case index(Int, CodablePath)

    /// The path followed by `key`.
    @inline(__always)
    func appending(_ key: any CodingKey) -> CodablePath { .key(key, self) }

    /// The path followed by `key`, or this path when `key` is nil.
    @inline(__always)
    func appending(_ key: (any CodingKey)?) -> CodablePath {
        guard let key else { return self }
        return .key(key, self)
    }

    /// The path followed by the array position `index` (`Index 3`).
    @inline(__always)
    func appending(index: Int) -> CodablePath { .index(index, self) }

    /// The keys from the root, outermost first.
    var keys: [any CodingKey] {
        var reversed: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return reversed.reversed()
            case .key(let key, let parent):
                reversed.append(key)
                node = parent
            case .index(let index, let parent):
                reversed.append(CodableKey(index: index))
                node = parent
            }
        }
    }

    /// The keys from the root followed by `key` (when not nil).
    func keys(appending key: (any CodingKey)?) -> [any CodingKey] {
        var keys = self.keys
        if let key { keys.append(key) }
        return keys
    }
}

/// The coding key the decoder and encoder make themselves: array positions (`Index 3`,
/// as Foundation names them), `super`, and the keys of dictionaries.
struct CodableKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    init(stringValue: String, intValue: Int?) {
        self.stringValue = stringValue
        self.intValue = intValue
    }

    /// An array position, spelled as Foundation spells it: `Index 3`.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    /// The key of `superDecoder()` and `superEncoder()`.
    static let `super` = CodableKey(stringValue: "super")
}
