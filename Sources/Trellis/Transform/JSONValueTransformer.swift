import Foundation

/// A named conversion between JSON values and attribute values: Groot's
/// `JSONTransformerName`, Mantle's value transformers.
///
/// A property annotated with a transformer name (`"JSONTransformerName":
/// "integer-from-string"`, or a bindings file's `"transformers"` map) is imported through
/// ``forward`` instead of ``JSONCoercion``, and exported through ``reverse``. Names are
/// looked up in a ``JSONValueTransformerRegistry``; ``JSONValueTransformerRegistry/standard``
/// holds the built-ins (see ``JSONValueTransformerRegistry``).
///
///     let cents = JSONValueTransformer(name: "cents", forward: { json in
///         guard let value = try JSONCoercion.decimal(from: json) else { return nil }
///         return .decimal(value / 100)
///     }, reverse: { value in
///         guard case .decimal(let d) = value else { throw TransformError(code: .typeMismatch, transformerName: "cents", message: "expected a decimal") }
///         return JSONCoercion.json(from: .decimal(d * 100), as: .decimal)
///     })
///     var registry = JSONValueTransformerRegistry.standard
///     registry.register(cents)
///
/// Foundation also declares a `JSONValueTransformer` class; inside a module that imports
/// both, this one wins (a module shadows the modules it imports), and
/// `Trellis.JSONValueTransformer` always names it.
public struct JSONValueTransformer: Sendable {
    /// The name bindings and annotations use (kebab-case for the built-ins: `iso8601`).
    public let name: String
    /// JSON → attribute value. Returns nil for "no value" (every built-in returns nil for
    /// JSON `null`). Throws ``TransformError``.
    public let forward: @Sendable (JSONValue) throws -> AttributeValue?
    /// Attribute value → JSON; nil when the transformer is not reversible (then the
    /// exporter cannot write the property). Throws ``TransformError``.
    public let reverse: (@Sendable (AttributeValue) throws -> JSONValue)?

    /// A transformer named `name` with the given directions.
    ///
    /// - Parameters:
    ///   - name: the registry key; should be unique in a registry.
    ///   - forward: JSON → value; nil for no value; throws ``TransformError``.
    ///   - reverse: value → JSON, or nil when there is no way back.
    public init(
        name: String,
        forward: @escaping @Sendable (JSONValue) throws -> AttributeValue?,
        reverse: (@Sendable (AttributeValue) throws -> JSONValue)?
    ) {
        self.name = name
        self.forward = forward
        self.reverse = reverse
    }

    /// `true` when the transformer has a ``reverse`` direction.
    public var isReversible: Bool { reverse != nil }

    /// ``forward`` applied to `json`.
    ///
    /// - Throws: ``TransformError``; an error of another type thrown by a custom
    ///   `forward` closure is wrapped as ``TransformError/Code/invalidValue`` with its
    ///   description as message.
    public func transformedValue(_ json: JSONValue) throws -> AttributeValue? {
        do {
            return try forward(json)
        } catch let error as TransformError {
            throw error
        } catch let error as CoercionError {
            throw TransformError(error, transformerName: name)
        } catch {
            throw TransformError(code: .invalidValue, transformerName: name, value: json, message: String(describing: error))
        }
    }

    /// ``reverse`` applied to `value`.
    ///
    /// - Throws: ``TransformError`` with code ``TransformError/Code/notReversible`` when
    ///   there is no reverse; other failures as ``transformedValue(_:)``.
    public func reverseTransformedValue(_ value: AttributeValue) throws -> JSONValue {
        guard let reverse else {
            throw TransformError(
                code: .notReversible, transformerName: name,
                message: "has no reverse transformation, so \(value) cannot be written as JSON")
        }
        do {
            return try reverse(value)
        } catch let error as TransformError {
            throw error
        } catch {
            throw TransformError(code: .invalidValue, transformerName: name, message: String(describing: error))
        }
    }
}
