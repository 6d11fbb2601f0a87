import Foundation

extension JSONMap {
    // MARK: - Inferred types

    /// The value at `keyPath`, converted to the type the call site expects.
    ///
    ///     id = try map.from("id")                    // String
    ///     continent = try map.from("location.continent")
    ///     firstTag = try map.from("tags.0")
    ///
    /// - Parameter keyPath: a ``JSONKeyPath`` (`a.b`, `items.0`, `a\.b`).
    /// - Returns: the converted value.
    /// - Throws: ``MappingError`` at the value's full path: `.missing` when the key path
    ///   leads nowhere, `.null` for `null`, `.typeMismatch`, `.invalidValue`, `.overflow`
    ///   or `.inexact` when the value does not convert.
    @inlinable
    public func from<T: JSONMapValue>(_ keyPath: String) throws -> T {
        let child = try requiredChild(keyPath, verbatim: false, expected: T.self)
        do {
            return try T.mapValue(from: child)
        } catch {
            throw child.located(error, expected: T.self)
        }
    }

    /// The value at `keyPath` converted to `T`, or nil when it is missing or `null`; also
    /// nil when it does not convert, unless ``Options/strict`` is set (then it throws).
    ///
    ///     summary = try map.from("summary")          // String?
    ///     cities = try map.from("cities") ?? []      // a default
    ///
    /// - Throws: ``MappingError`` for unconvertible values with ``Options/strict``; always
    ///   for `.unknownTransformer`.
    @inlinable
    public func from<T: JSONMapValue>(_ keyPath: String) throws -> T? {
        guard let child = try optionalChild(keyPath, verbatim: false, expected: T.self) else { return nil }
        do {
            return try T.mapValue(from: child)
        } catch {
            try child.recover(error, expected: T.self)
            return nil
        }
    }

    /// The value at the verbatim key `key` (no key path syntax: `"a.b"` is one key).
    /// Same rules as ``from(_:)-(String)``.
    @inlinable
    public func from<T: JSONMapValue>(key: String) throws -> T {
        let child = try requiredChild(key, verbatim: true, expected: T.self)
        do {
            return try T.mapValue(from: child)
        } catch {
            throw child.located(error, expected: T.self)
        }
    }

    /// The value at the verbatim key `key`, or nil (same rules as the key path form).
    @inlinable
    public func from<T: JSONMapValue>(key: String) throws -> T? {
        guard let child = try optionalChild(key, verbatim: true, expected: T.self) else { return nil }
        do {
            return try T.mapValue(from: child)
        } catch {
            try child.recover(error, expected: T.self)
            return nil
        }
    }

    // MARK: - Transformers

    /// The value at `keyPath` read by `transformer` instead of `T`'s own conversion.
    ///
    ///     pubDate = try map.from("pub_date", using: .iso8601)
    ///
    /// On a stored object, a value that already has type `T` (a date attribute for
    /// `Date`) is used as is; other values are given to the transformer in their JSON form.
    ///
    /// - Throws: ``MappingError`` as ``from(_:)-(String)``; the transformer's errors at
    ///   the value's path.
    public func from<T>(_ keyPath: String, using transformer: MappingTransformer<T>) throws -> T {
        try required(keyPath, verbatim: false) { try $0.transformed(by: transformer) }
    }

    /// The value at `keyPath` read by `transformer`, or nil (rules of ``from(_:)-(String)``
    /// for optionals).
    public func from<T>(_ keyPath: String, using transformer: MappingTransformer<T>) throws -> T? {
        try optional(keyPath, verbatim: false) { try $0.transformed(by: transformer) }
    }

    /// The value at `keyPath` read by your closure (given the JSON value, never `null`).
    ///
    ///     tags = try map.from("tags") { json in json.stringValue?.split(separator: ",").map(String.init) ?? [] }
    public func from<T>(_ keyPath: String, using transform: (JSONValue) throws -> T) throws -> T {
        try required(keyPath, verbatim: false) { try $0.converted(by: transform) }
    }

    /// The value at `keyPath` read by your closure, or nil (rules for optionals).
    public func from<T>(_ keyPath: String, using transform: (JSONValue) throws -> T) throws -> T? {
        try optional(keyPath, verbatim: false) { try $0.converted(by: transform) }
    }

    /// The value at `keyPath` passed through the value transformer registered as
    /// `transformerName` in ``Options/transformers`` (Groot's `JSONTransformerName`),
    /// then converted to `T`.
    ///
    ///     createdAt = try map.from("created", using: "epoch-seconds")
    ///
    /// On a stored object the value was transformed when it was imported, so the
    /// transformer is skipped and the stored value converts to `T` directly.
    ///
    /// - Throws: ``MappingError`` `.unknownTransformer` (even for optionals) when no
    ///   transformer has that name; otherwise as ``from(_:)-(String)``.
    public func from<T: JSONMapValue>(_ keyPath: String, using transformerName: String) throws -> T {
        let transformer = try registeredTransformer(transformerName, keyPath: keyPath, expected: T.self)
        return try required(keyPath, verbatim: false) { child in
            guard let value = try child.transformed(by: transformer, expected: T.self) else {
                throw child.nullError(expected: T.self, message: "value transformer \"\(transformerName)\" gave no value")
            }
            return try T.mapValue(from: value)
        }
    }

    /// The value at `keyPath` through a registered transformer, or nil (rules for
    /// optionals; a transformer result of nil is nil).
    public func from<T: JSONMapValue>(_ keyPath: String, using transformerName: String) throws -> T? {
        let transformer = try registeredTransformer(transformerName, keyPath: keyPath, expected: T.self)
        guard let child = try optionalChild(keyPath, verbatim: false, expected: T.self) else { return nil }
        do {
            guard let value = try child.transformed(by: transformer, expected: T.self) else { return nil }
            return try T.mapValue(from: value)
        } catch {
            try child.recover(error, expected: T.self)
            return nil
        }
    }

    // MARK: - Internals

    /// A non-optional read: missing and `null` throw; conversion errors gain the path.
    func required<T>(_ keyPath: String, verbatim: Bool, _ convert: (JSONMap) throws -> T) throws -> T {
        let child = try requiredChild(keyPath, verbatim: verbatim, expected: T.self)
        do {
            return try convert(child)
        } catch {
            throw child.located(error, expected: T.self)
        }
    }

    /// An optional read: missing and `null` are nil; conversion errors are nil unless strict.
    func optional<T>(_ keyPath: String, verbatim: Bool, _ convert: (JSONMap) throws -> T) throws -> T? {
        guard let child = try optionalChild(keyPath, verbatim: verbatim, expected: T.self) else { return nil }
        do {
            return try convert(child)
        } catch {
            try child.recover(error, expected: T.self)
            return nil
        }
    }

    /// For an optional property: returns (the property becomes nil) when `error` is a
    /// conversion failure and the mapping is not strict; throws it, located, otherwise.
    /// Errors that are not about the data (a store failing to fault in a relationship,
    /// your own error types) are never swallowed.
    @usableFromInline
    func recover(_ error: any Error, expected: Any.Type) throws {
        let located = located(error, expected: expected)
        if !options.strict, let mapping = located as? MappingError, mapping.code.isLenient { return }
        throw located
    }

    /// `.missing` at the requested path, or `.typeMismatch` at this map when it is a
    /// scalar (keys cannot be read from `"abc"`).
    func missingError(keyPath: String, verbatim: Bool, expected: Any.Type) -> MappingError {
        if source == nil, !isContainer, !json.isNull {
            return MappingError(
                code: .typeMismatch, path: path, expected: "object", found: json,
                message: "cannot read \"\(keyPath)\" (\(JSONMapTypeName.of(expected))) from \(withIndefiniteArticle(json.kind.description))")
        }
        return MappingError(
            code: .missing, path: requestedPath(keyPath, verbatim: verbatim),
            expected: JSONMapTypeName.of(expected), message: "missing value")
    }

    /// `.null` at this map.
    func nullError(expected: Any.Type, message: String) -> MappingError {
        MappingError(code: .null, path: path, expected: JSONMapTypeName.of(expected), found: .null, message: message)
    }

    /// `.null` at `step` below this map.
    func nullError(at step: MappingLocation.Step, expected: Any.Type) -> MappingError {
        MappingError(
            code: .null, path: location.appending(step).path, expected: JSONMapTypeName.of(expected),
            found: .null, message: "null value")
    }

    /// `error`, thrown while reading a value of `expected` from this map, as the error to
    /// report: a ``MappingError`` as is (it has its own, deeper location); a
    /// `CoercionError`, `TransformError` or `DecodingError` as a ``MappingError`` located
    /// here (see ``conversionError(_:expected:found:)``); any other error unchanged
    /// (your own error types thrown from `init(map:)`, a store's errors).
    @usableFromInline
    func located(_ error: any Error, expected: Any.Type) -> any Error {
        switch error {
        case is MappingError, is CoercionError, is TransformError, is DecodingError:
            return conversionError(error, expected: expected)
        default:
            return error
        }
    }

    /// `error`, thrown by conversion code (a coercion, a transformer, your closure or
    /// custom date strategy), as a ``MappingError`` located at this map: a mapping error
    /// as is; a `CoercionError` or `TransformError` keeps its code and message; a
    /// `DecodingError` adds its coding path; any other error becomes `.invalidValue`
    /// with the error as ``MappingError/underlyingError``.
    func conversionError(_ error: any Error, expected: Any.Type, found: JSONValue? = nil) -> MappingError {
        if let error = error as? MappingError { return error }
        let found = found ?? foundValue
        let expectedName = JSONMapTypeName.of(expected)
        switch error {
        case let error as CoercionError:
            return MappingError(
                code: MappingError.Code(rawValue: error.code.rawValue), path: path, expected: expectedName,
                found: found, message: error.message, underlyingError: error)
        case let error as TransformError:
            let message = error.value == nil ? error.description : "value transformer \"\(error.transformerName)\": \(error.message)"
            return MappingError(
                code: MappingError.Code(rawValue: error.code.rawValue), path: path, expected: expectedName,
                found: found, message: message, underlyingError: error)
        case let error as DecodingError:
            return located(error, expected: expectedName)
        default:
            return MappingError(
                code: .invalidValue, path: path, expected: expectedName, found: found,
                message: String(describing: error), underlyingError: error)
        }
    }

    /// A conversion failure at this map.
    func failure(_ code: MappingError.Code, expected: Any.Type, message: String = "") -> MappingError {
        MappingError(code: code, path: path, expected: JSONMapTypeName.of(expected), found: foundValue, message: message)
    }

    /// Runs a per-property transformer on this map's value; its errors are conversion errors.
    func transformed<T>(by transformer: MappingTransformer<T>) throws -> T {
        if case .attribute(let value)? = source?.node, let typed = value.anyValue as? T { return typed }
        let json = try root
        do {
            return try transformer.forward(json)
        } catch {
            throw conversionError(error, expected: T.self)
        }
    }

    /// Runs your conversion closure on this map's value; its errors are conversion errors.
    func converted<T>(by transform: (JSONValue) throws -> T) throws -> T {
        let json = try root
        do {
            return try transform(json)
        } catch {
            throw conversionError(error, expected: T.self)
        }
    }

    /// Runs a registered transformer: the map of its result, or nil for "no value".
    /// Stored values are not transformed again.
    func transformed(by transformer: JSONValueTransformer, expected: Any.Type) throws -> JSONMap? {
        if case .attribute? = source?.node { return self }
        let json = try root
        let value: AttributeValue?
        do {
            value = try transformer.transformedValue(json)
        } catch {
            throw conversionError(error, expected: expected)
        }
        guard let value else { return nil }
        return JSONMap(node: .attribute(value), location: location, context: context)
    }

    /// The registered transformer `name`, or `.unknownTransformer` at the key path.
    func registeredTransformer(_ name: String, keyPath: String, expected: Any.Type) throws -> JSONValueTransformer {
        do {
            return try options.transformers.transformer(named: name)
        } catch {
            throw MappingError(
                code: .unknownTransformer, path: requestedPath(keyPath),
                expected: JSONMapTypeName.of(expected), message: String(describing: error),
                underlyingError: error)
        }
    }

    /// A `DecodingError` from a `Decodable` leaf, located at this map plus its coding path.
    func located(_ error: DecodingError, expected: String) -> MappingError {
        let (code, context): (MappingError.Code, DecodingError.Context?)
        switch error {
        case .typeMismatch(_, let c): (code, context) = (.typeMismatch, c)
        case .valueNotFound(_, let c): (code, context) = (.null, c)
        case .keyNotFound(let key, let c):
            (code, context) = (.missing, DecodingError.Context(codingPath: c.codingPath + [key], debugDescription: c.debugDescription))
        case .dataCorrupted(let c): (code, context) = (.invalidValue, c)
        @unknown default: (code, context) = (.invalidValue, nil)
        }
        var path = self.path
        var value: JSONValue? = foundValue
        for key in context?.codingPath ?? [] {
            if let index = key.intValue, case .array(let elements)? = value {
                path = path.appending(index: index)
                value = index < elements.count ? elements[index] : nil
            } else {
                path = path.appending(key: key.stringValue)
                value = value?[key.stringValue]
            }
        }
        return MappingError(
            code: code, path: path, expected: expected, found: code == .missing ? nil : value,
            message: context?.debugDescription ?? String(describing: error), underlyingError: error)
    }
}

extension MappingError.Code {
    /// Codes an optional property turns into nil (unless strict): conversion failures,
    /// not configuration mistakes.
    var isLenient: Bool {
        self != .unknownTransformer && self != .notReversible && self != .cannotWrite && self != .depthLimitExceeded
    }
}

extension AttributeValue {
    /// The Swift value inside, for `as? T` checks.
    var anyValue: Any {
        switch self {
        case .string(let v): return v
        case .integer(let v): return v
        case .decimal(let v): return v
        case .double(let v): return v
        case .bool(let v): return v
        case .date(let v): return v
        case .binary(let v): return v
        case .uuid(let v): return v
        case .uri(let v): return v
        case .json(let v): return v
        }
    }
}
