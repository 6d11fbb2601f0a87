// Interim version of the value transformer API (the full registry with built-ins is being
// written on the `transform` branch and replaces this file).

/// A named conversion between JSON and attribute values (Groot's `JSONTransformerName`).
public struct ValueTransformer: Sendable {
    public let name: String
    /// JSON → value; nil for "no value".
    public let forward: @Sendable (JSONValue) throws -> AttributeValue?
    /// value → JSON; nil when not reversible.
    public let reverse: (@Sendable (AttributeValue) throws -> JSONValue)?

    public init(name: String, forward: @escaping @Sendable (JSONValue) throws -> AttributeValue?,
                reverse: (@Sendable (AttributeValue) throws -> JSONValue)?) {
        self.name = name
        self.forward = forward
        self.reverse = reverse
    }
}

/// Named value transformers.
public struct ValueTransformerRegistry: Sendable {
    private var byName: [String: ValueTransformer] = [:]
    public static let standard = ValueTransformerRegistry()
    public init() {}
    public mutating func register(_ transformer: ValueTransformer) { byName[transformer.name] = transformer }
    public var names: [String] { byName.keys.sorted() }
    public func transformer(named name: String) throws -> ValueTransformer {
        if let t = byName[name] { return t }
        throw TransformError(message: "unknown value transformer '\(name)'; registered: \(names.joined(separator: ", "))")
    }
}

public struct TransformError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
