/// The location of a value in a JSON document, written the way error messages show it:
/// `$` for the root, `.name` for a key, `[3]` for an array index, and `["a.b"]` for a key
/// that is not a plain identifier (`$.statuses[3].user.id`, `$.names["138586341"]`).
///
/// Paths are built only when an error is reported: hot loops carry a parent path and an
/// index or key, and call ``appending(key:)`` / ``appending(index:)`` on the failure path.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps from the root, outermost first (empty for `$`).
    public private(set) var components: [Component]

    /// The root, `$`.
    public static let root = JSONPath(components: [])

    public init(components: [Component]) {
        self.components = components
    }

    /// This path followed by `key`.
    public func appending(key: String) -> JSONPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    /// This path followed by `index`.
    public func appending(index: Int) -> JSONPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    /// This path followed by the components of a key path (an all-digit component
    /// is shown as a key, since whether it indexed an array is not known here).
    public func appending(_ keyPath: JSONKeyPath) -> JSONPath {
        var copy = self
        for component in keyPath.components { copy.components.append(.key(component.key)) }
        return copy
    }

    /// This path followed by the components of `keyPath` as it reads `value` (the value at
    /// this path): an all-digit component that indexes an array is shown as an index
    /// (`$.a[1].id` for `a.1.id` in `{"a": [{…}, {…}]}`), every other component as a key,
    /// including those past a missing or scalar value.
    public func appending(_ keyPath: JSONKeyPath, readingFrom value: JSONValue?) -> JSONPath {
        var copy = self
        var current = value
        for component in keyPath.components {
            switch current {
            case .array(let array)?:
                if let i = component.index {
                    copy.components.append(.index(i))
                    current = i < array.count ? array[i] : nil
                } else {
                    copy.components.append(.key(component.key))
                    current = nil
                }
            case .object(let object)?:
                copy.components.append(.key(component.key))
                current = object[component.key]
            default:
                copy.components.append(.key(component.key))
                current = nil
            }
        }
        return copy
    }

    /// This path followed by `other`'s components.
    public func appending(_ other: JSONPath) -> JSONPath {
        var copy = self
        copy.components.append(contentsOf: other.components)
        return copy
    }

    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let i):
                text += "[\(i)]"
            case .key(let k):
                if JSONPath.isPlainIdentifier(k) {
                    text += "." + k
                } else {
                    text += "[" + JSONWriter.quoted(k) + "]"
                }
            }
        }
        return text
    }

    public static func < (lhs: JSONPath, rhs: JSONPath) -> Bool {
        lhs.description < rhs.description
    }

    // MARK: - Internals

    static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return key.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x24
        }
    }
}
