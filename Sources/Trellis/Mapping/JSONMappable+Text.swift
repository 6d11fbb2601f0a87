import Foundation

// Reading models from JSON text, and writing them as JSON text.

extension JSONMapValue {
    /// Parses UTF-8 JSON text with ``JSONReader`` and reads a value of this type from it.
    ///
    ///     let user = try User(jsonData: data)
    ///     let users = try [User](jsonData: data, options: .init(strict: true))
    ///
    /// - Parameters:
    ///   - jsonData: the whole JSON document (RFC 8259, UTF-8).
    ///   - options: mapping options; ``JSONMap/Options/readerOptions`` for the parser.
    /// - Throws: ``JSONParseError`` (with line and column) for malformed text;
    ///   ``MappingError`` with the path of the value that does not map.
    @inlinable
    public init(jsonData: Data, options: JSONMap.Options = JSONMap.Options()) throws {
        try self.init(json: JSONReader.parse(jsonData, options: options.readerOptions), options: options)
    }

    /// Parses JSON text with ``JSONReader`` and reads a value of this type from it.
    ///
    ///     let user = try User(jsonString: #"{"id": "7", "summary": null}"#)
    ///
    /// - Throws: ``JSONParseError`` for malformed text; ``MappingError`` otherwise.
    @inlinable
    public init(jsonString: String, options: JSONMap.Options = JSONMap.Options()) throws {
        try self.init(json: JSONReader.parse(jsonString, options: options.readerOptions), options: options)
    }
}

extension JSONWritableValue {
    /// The value as UTF-8 JSON text, written by ``JSONWriter``.
    ///
    ///     let data = try user.jsonData()              // {"id":"7","summary":null}
    ///     let pretty = try users.jsonData(pretty: true)
    ///
    /// - Parameters:
    ///   - pretty: indent with two spaces, one member per line (default compact).
    ///   - options: nil policy, date strategy, transformers.
    /// - Throws: ``MappingError`` with the path of a value that cannot be written.
    public func jsonData(pretty: Bool = false, options: JSONWriteMap.Options = JSONWriteMap.Options()) throws -> Data {
        let json = try jsonValue(options: options)
        return try JSONWriter.data(for: json, options: pretty ? .pretty : .compact)
    }

    /// The value as JSON text, written by ``JSONWriter``.
    ///
    /// - Parameters:
    ///   - pretty: indent with two spaces, one member per line (default compact).
    ///   - options: nil policy, date strategy, transformers.
    /// - Throws: ``MappingError`` with the path of a value that cannot be written.
    public func jsonString(pretty: Bool = false, options: JSONWriteMap.Options = JSONWriteMap.Options()) throws -> String {
        let json = try jsonValue(options: options)
        return try JSONWriter.string(for: json, options: pretty ? .pretty : .compact)
    }
}
