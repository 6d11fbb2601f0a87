/// A path to a value inside a JSON document, as Groot's `JSONKeyPath`, Mantle's
/// `JSONKeyPathsByPropertyKey` and Mappable's `map.from("a.b")` use them.
///
/// ## Syntax
///
/// - Components are separated by `.`: `user.screen_name` reads `{"user":{"screen_name":…}}`.
/// - A component made only of decimal digits (`0`, `12`; no sign, no leading zero) is an
///   **array index** when the value it is applied to is an array, and an ordinary key
///   when that value is an object: `entities.hashtags.0.text` reads the first hashtag's
///   text, and `names.138586341` reads the key `"138586341"` of an object (Mappable's
///   syntax, chosen because payloads key objects by numeric ids).
/// - A key that itself contains a dot is written with a backslash escape: `a\.b` is the
///   single key `"a.b"`; `\\` is a literal backslash. Any other escape is an error.
/// - Or skip the syntax entirely: ``init(key:)`` makes a one-component path whose key is
///   taken verbatim (dots, backslashes and digits included). Model annotations can ask
///   for this with `JSONKeyPathIsLiteral` (see the model documentation).
///
/// Parsing rejects the empty string, empty components (`a..b`, `.a`, `a.`) and a dangling
/// backslash, with a ``JSONKeyPathError`` naming the character position.
///
/// ## Reading
///
/// ``lookup(in:)`` distinguishes three outcomes: the value is **missing** (a key is absent,
/// an index is out of bounds, or something in the middle of the path is `null`, a scalar,
/// or the wrong container), the value is **null**, or it is **present**. Nothing traps.
///
/// ## Writing
///
/// ``set(_:in:)`` writes a value at the path, creating intermediate objects for missing
/// or `null` intermediates. An index component writes into an existing array (replacing,
/// or appending when the index equals the count). A scalar in the middle of the path is
/// an error (``JSONKeyPathError/Code/cannotWrite``), never silently overwritten.
public struct JSONKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object key; when `index` is non-nil the key is all digits and also
        /// addresses that element of an array.
        case key(String, index: Int?)

        /// The key text of the component.
        public var key: String {
            switch self {
            case .key(let k, _): return k
            }
        }

        /// The array index the component addresses, when it is all digits.
        public var index: Int? {
            switch self {
            case .key(_, let i): return i
            }
        }
    }

    /// The components, outermost first. Never empty.
    public let components: [Component]

    // MARK: - Initialisers

    /// Parses `text` in the syntax above.
    ///
    /// - Throws: ``JSONKeyPathError`` with code `.empty`, `.emptyComponent` or
    ///   `.danglingEscape`/`.invalidEscape`, and the 1-based character position.
    public init(parsing text: String) throws {
        var components: [Component] = []
        var current = ""
        var position = 0
        var escaping = false
        var componentHasText = false
        for scalar in text.unicodeScalars {
            position += 1
            if escaping {
                guard scalar == "." || scalar == "\\" else {
                    throw JSONKeyPathError(
                        .invalidEscape, keyPath: text, position: position,
                        message: "'\\\(scalar)' is not an escape; use '\\.' for a dot and '\\\\' for a backslash")
                }
                current.unicodeScalars.append(scalar)
                componentHasText = true
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "." {
                guard componentHasText else {
                    throw JSONKeyPathError(
                        .emptyComponent, keyPath: text, position: position,
                        message: "empty component before '.'")
                }
                components.append(JSONKeyPath.component(current))
                current = ""
                componentHasText = false
            } else {
                current.unicodeScalars.append(scalar)
                componentHasText = true
            }
        }
        if escaping {
            throw JSONKeyPathError(
                .danglingEscape, keyPath: text, position: position,
                message: "the key path ends with a lone '\\'")
        }
        if text.isEmpty {
            throw JSONKeyPathError(.empty, keyPath: text, position: 0, message: "the key path is empty")
        }
        guard componentHasText else {
            throw JSONKeyPathError(
                .emptyComponent, keyPath: text, position: position,
                message: "the key path ends with '.'")
        }
        components.append(JSONKeyPath.component(current))
        self.components = components
    }

    /// A path of one key, taken verbatim: no dot splitting, no escapes, no index meaning.
    /// `JSONKeyPath(key: "a.b")` reads `{"a.b": 1}`.
    public init(key: String) {
        components = [.key(key, index: nil)]
    }

    /// A path from components (must not be empty; an empty array gives the path `$`
    /// to the root, which reads the value itself).
    public init(components: [Component]) {
        self.components = components
    }

    /// A string literal is parsed; an unparsable literal becomes a single verbatim key.
    public init(stringLiteral value: String) {
        if let parsed = try? JSONKeyPath(parsing: value) {
            self = parsed
        } else {
            self.init(key: value)
        }
    }

    // MARK: - Reading

    /// Looks the path up in `root`.
    ///
    ///     let doc: JSONValue = ["user": ["name": "Ada", "bio": nil], "tags": ["x"]]
    ///     try JSONKeyPath(parsing: "user.name").lookup(in: doc)   // .present("Ada")
    ///     try JSONKeyPath(parsing: "user.bio").lookup(in: doc)    // .null
    ///     try JSONKeyPath(parsing: "user.bio.x").lookup(in: doc)  // .missing
    ///     try JSONKeyPath(parsing: "tags.0").lookup(in: doc)      // .present("x")
    ///
    /// - Complexity: O(k) object lookups for k components.
    public func lookup(in root: JSONValue) -> JSONLookup {
        var current = root
        for component in components {
            switch current {
            case .object(let object):
                guard let next = object[component.key] else { return .missing }
                current = next
            case .array(let array):
                guard let i = component.index, i < array.count else { return .missing }
                current = array[i]
            default:
                return .missing
            }
        }
        if case .null = current { return .null }
        return .present(current)
    }

    /// Looks the path up in an object (the common case for mapped properties). A
    /// one-component path is a single key lookup; longer paths walk without allocating.
    @inline(__always)
    public func lookup(in object: JSONObject) -> JSONLookup {
        guard let first = components.first else { return .present(.object(object)) }
        guard let value = object[first.key] else { return .missing }
        return lookup(below: value)
    }

    /// ``lookup(in:)-JSONObject``, finding the first key through `cache`, which must be
    /// made for it (``firstKeyCache()``).
    @inline(__always)
    func lookup(in object: JSONObject, cache: inout JSONObject.KeyPositionCache) -> JSONLookup {
        guard let value = object.value(cachedIn: &cache) else { return .missing }
        return lookup(below: value)
    }

    /// A cache for ``lookup(in:cache:)``: where the first component's key is.
    func firstKeyCache() -> JSONObject.KeyPositionCache { JSONObject.KeyPositionCache(key: components[0].key) }

    /// The rest of the path (after the first component) read from `value`.
    @inline(__always)
    private func lookup(below value: JSONValue) -> JSONLookup {
        var current = value
        for component in components.dropFirst() {
            switch current {
            case .object(let inner):
                guard let next = inner[component.key] else { return .missing }
                current = next
            case .array(let array):
                guard let i = component.index, i < array.count else { return .missing }
                current = array[i]
            default:
                return .missing
            }
        }
        if case .null = current { return .null }
        return .present(current)
    }

    // MARK: - Writing

    /// Writes `value` at this path inside `root`, creating intermediate objects.
    ///
    /// - Throws: ``JSONKeyPathError`` `.cannotWrite` when a scalar or an array (for a
    ///   non-index component, or an index beyond the end) stands in the way.
    public func set(_ value: JSONValue, in root: inout JSONValue) throws {
        try JSONKeyPath.set(value, in: &root, components: components[...], keyPath: self)
    }

    /// Writes `value` at this path inside an object, creating intermediate objects.
    public func set(_ value: JSONValue, in object: inout JSONObject) throws {
        var root = JSONValue.object(object)
        object = JSONObject()  // drop the second reference so the write below is in place
        defer { if case .object(let o) = root { object = o } }
        try set(value, in: &root)
    }

    // MARK: - Description

    /// The path in the syntax above (dots and backslashes inside keys escaped).
    public var description: String {
        components.map { component in
            var escaped = ""
            for scalar in component.key.unicodeScalars {
                if scalar == "." || scalar == "\\" { escaped.unicodeScalars.append("\\") }
                escaped.unicodeScalars.append(scalar)
            }
            return escaped
        }.joined(separator: ".")
    }

    // MARK: - Internals

    private static func component(_ text: String) -> Component {
        .key(text, index: arrayIndex(text))
    }

    /// The index a digits-only component denotes (no sign, no leading zero), or nil.
    static func arrayIndex(_ text: String) -> Int? {
        let utf8 = text.utf8
        guard let first = utf8.first, first >= 0x30, first <= 0x39 else { return nil }
        if first == 0x30 { return utf8.count == 1 ? 0 : nil }
        guard utf8.count <= 18, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func set(
        _ value: JSONValue, in node: inout JSONValue, components: ArraySlice<Component>,
        keyPath: JSONKeyPath
    ) throws {
        guard let component = components.first else {
            node = value
            return
        }
        let rest = components.dropFirst()
        switch node {
        case .null:
            var object = JSONObject()
            var child = JSONValue.null
            try set(value, in: &child, components: rest, keyPath: keyPath)
            object.append(key: component.key, value: child)
            node = .object(object)
        case .object(var object):
            node = .null  // release the enum's reference so `object` is uniquely referenced
            var child = object[component.key] ?? .null
            object[component.key] = .null
            do {
                try set(value, in: &child, components: rest, keyPath: keyPath)
            } catch {
                object[component.key] = child
                node = .object(object)
                throw error
            }
            object[component.key] = child
            node = .object(object)
        case .array(var array):
            guard let i = component.index, i <= array.count else {
                throw JSONKeyPathError(
                    .cannotWrite, keyPath: keyPath.description, position: 0,
                    message: "cannot write key '\(component.key)' into an array")
            }
            node = .null
            var child = i < array.count ? array[i] : .null
            do {
                try set(value, in: &child, components: rest, keyPath: keyPath)
            } catch {
                node = .array(array)
                throw error
            }
            if i < array.count { array[i] = child } else { array.append(child) }
            node = .array(array)
        default:
            throw JSONKeyPathError(
                .cannotWrite, keyPath: keyPath.description, position: 0,
                message: "cannot write key '\(component.key)' into \(withIndefiniteArticle(node.kind.description))")
        }
    }
}

/// The outcome of reading a ``JSONKeyPath``: missing, null, or a present value.
public enum JSONLookup: Sendable, Hashable {
    /// A key is absent, an index is out of bounds, or the path crosses a null or a scalar.
    case missing
    /// The path leads to a JSON `null`.
    case null
    /// The path leads to this (non-null) value.
    case present(JSONValue)

    /// The value when present; nil when missing or null.
    public var value: JSONValue? {
        if case .present(let v) = self { return v }
        return nil
    }

    /// `true` when the path was missing.
    public var isMissing: Bool {
        if case .missing = self { return true }
        return false
    }
}

/// A key path that cannot be parsed or written.
public struct JSONKeyPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible like `CocoaError.Code`.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The key path is the empty string.
        public static let empty = Code(rawValue: "empty")
        /// `a..b`, `.a` or `a.`.
        public static let emptyComponent = Code(rawValue: "emptyComponent")
        /// A trailing `\`.
        public static let danglingEscape = Code(rawValue: "danglingEscape")
        /// A `\` followed by something other than `.` or `\`.
        public static let invalidEscape = Code(rawValue: "invalidEscape")
        /// Writing crosses a scalar or addresses an array with a key.
        public static let cannotWrite = Code(rawValue: "cannotWrite")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? JSONKeyPathError)?.code == code
        }
    }

    public let code: Code
    /// The key path text.
    public let keyPath: String
    /// 1-based position (in Unicode scalars) of the offending character; 0 when not applicable.
    public let position: Int
    public let message: String

    public init(_ code: Code, keyPath: String, position: Int, message: String) {
        self.code = code
        self.keyPath = keyPath
        self.position = position
        self.message = message
    }

    public var description: String {
        position > 0
            ? "invalid key path '\(keyPath)' at character \(position): \(message)"
            : "key path '\(keyPath)': \(message)"
    }
}
