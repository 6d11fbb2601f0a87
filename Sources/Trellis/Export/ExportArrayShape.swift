/// Where an entity's mapped key paths address JSON arrays, so the exporter writes arrays
/// there: `weather.0.description` and `weather.1.description` give
/// `{"weather": [{"description": …}, {"description": …}]}`, the shape the import read.
///
/// The rule, per location of the JSON object (a key path prefix): it is an array of n
/// elements when no mapped key path ends there and the components that follow it, over
/// all mapped key paths (attributes and relationships) running through it, are exactly
/// the array indexes `0` to `n-1`. Anywhere else an all-digits component stays an object
/// key (`names.138586341` writes `{"names": {"138586341": …}}`), as ``JSONKeyPath`` reads
/// it from an object. Either way the import reads the export back: a key path reads an
/// index from an array and a key from an object.
///
/// The exporter writes every value at its key path as usual (objects keyed `"0"`, `"1"`),
/// then ``apply(to:)`` turns the array locations into arrays, `null` at an index no
/// property wrote (``ExportOptions/NilPolicy/omit``).
struct ExportArrayShape: Sendable {
    /// The members leading to array locations, by key.
    var members: [(key: String, shape: ExportArrayShape)] = []
    /// The element count when this location is an array.
    var arrayCount: Int?

    /// The shape of `keyPaths`, or nil when none of them addresses an array.
    init?(keyPaths: [JSONKeyPath]) {
        var trie = Trie()
        for keyPath in keyPaths { trie.insert(keyPath.components[...]) }
        guard var shape = trie.shape() else { return nil }
        shape.arrayCount = nil  // the exported object itself stays an object
        if shape.members.isEmpty { return nil }
        self = shape
    }

    private init(members: [(key: String, shape: ExportArrayShape)], arrayCount: Int?) {
        self.members = members
        self.arrayCount = arrayCount
    }

    /// Turns the array locations of `value` (an object as the exporter wrote it) into arrays.
    func apply(to value: inout JSONValue) {
        guard case .object(var object) = value else { return }
        value = .null  // `object` is now uniquely referenced: the writes below are in place
        for (key, shape) in members {
            guard var member = object[key] else { continue }
            object[key] = .null
            shape.apply(to: &member)
            object[key] = member
        }
        guard let count = arrayCount else {
            value = .object(object)
            return
        }
        // Every key is an index below `count` (only index components lead here).
        var elements = [JSONValue](repeating: .null, count: count)
        for (key, member) in object {
            guard let i = JSONKeyPath.arrayIndex(key), i < count else {
                value = .object(object)  // not written by the mapped key paths: left as it is
                return
            }
            elements[i] = member
        }
        value = .array(elements)
    }

    /// The mapped key paths as a tree of components.
    private struct Trie {
        var children: [(component: JSONKeyPath.Component, trie: Trie)] = []
        /// A key path ends here.
        var isEnd = false

        mutating func insert(_ components: ArraySlice<JSONKeyPath.Component>) {
            guard let first = components.first else {
                isEnd = true
                return
            }
            let i =
                children.firstIndex { $0.component.key.hasSameCodeUnits(as: first.key) }
                ?? {
                    children.append((first, Trie()))
                    return children.count - 1
                }()
            children[i].trie.insert(components.dropFirst())
        }

        /// The shape of the locations below this one, or nil when none is an array.
        func shape() -> ExportArrayShape? {
            var members: [(key: String, shape: ExportArrayShape)] = []
            for child in children {
                if let shape = child.trie.shape() { members.append((child.component.key, shape)) }
            }
            let indexes = Set(children.compactMap(\.component.index))
            let isArray =
                !isEnd && !children.isEmpty && indexes.count == children.count
                && indexes.allSatisfy { $0 < children.count }
            if !isArray && members.isEmpty { return nil }
            return ExportArrayShape(members: members, arrayCount: isArray ? children.count : nil)
        }
    }
}
