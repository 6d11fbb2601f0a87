import Trellis

/// Reads the members of one JSON object of a model file, with the object's path for
/// errors. Construction rejects keys outside `allowed` (naming the closest allowed key);
/// `null` reads as absent.
struct FieldReader {
    let object: JSONObject
    let path: JSONPath

    /// - Parameters:
    ///   - what: the object's role in messages (`an entity`, `an attribute`).
    init(_ value: JSONValue, at path: JSONPath, what: String, allowed: [String]) throws {
        guard case .object(let object) = value else {
            throw ModelFileError(.wrongType, path: path, message: "expected \(what) (an object), found \(FieldReader.kindPhrase(value))")
        }
        for key in object.keys where !allowed.contains(key) {
            var message = "unknown key '\(key)' in \(what)"
            if let suggestion = FieldReader.closest(to: key, in: allowed) { message += " (did you mean '\(suggestion)'?)" }
            message += "; allowed keys: " + allowed.joined(separator: ", ")
            throw ModelFileError(.unknownKey, path: path.appending(key: key), message: message)
        }
        self.object = object
        self.path = path
    }

    // MARK: - Typed members

    /// The member, or nil when absent or `null`.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let s) = value else { throw wrongType(key, expected: "a string", found: value) }
        return s
    }

    func requiredString(_ key: String, what: String) throws -> String {
        guard let s = try string(key) else {
            throw ModelFileError(.missingKey, path: path, message: "\(what) needs \"\(key)\" (a string)")
        }
        return s
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let b) = value else { throw wrongType(key, expected: "true or false", found: value) }
        return b
    }

    func int(_ key: String) throws -> Int? {
        guard let value = value(key) else { return nil }
        guard let i = value.intValue, i >= 0 else {
            throw wrongType(key, expected: "a non-negative integer", found: value)
        }
        return i
    }

    func array(_ key: String) throws -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let a) = value else { throw wrongType(key, expected: "an array", found: value) }
        return a
    }

    func objectMember(_ key: String) throws -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard case .object(let o) = value else { throw wrongType(key, expected: "an object", found: value) }
        return o
    }

    /// An object whose values are all strings (`userInfo`, rename tables).
    func stringTable(_ key: String) throws -> [String: String]? {
        guard let object = try objectMember(key) else { return nil }
        var table: [String: String] = [:]
        for (k, v) in object {
            guard case .string(let s) = v else {
                throw ModelFileError(
                    .wrongType, path: path.appending(key: key).appending(key: k),
                    message: "expected a string, found \(FieldReader.kindPhrase(v))")
            }
            table[k] = s
        }
        return table
    }

    func wrongType(_ key: String, expected: String, found: JSONValue) -> ModelFileError {
        ModelFileError(
            .wrongType, path: path.appending(key: key),
            message: "expected \(expected), found \(FieldReader.kindPhrase(found))")
    }

    // MARK: - Helpers

    /// `the number 3`, `the string "x"`, `an array`, `an object`, `true`, `null`.
    static func kindPhrase(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "the number \(n.text)"
        case .string(let s): return "the string \(JSONWriter.quoted(s))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The allowed key within edit distance 2 of `key` (case-insensitive), if any.
    static func closest(to key: String, in candidates: [String]) -> String? {
        let lowered = Array(key.lowercased())
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(lowered, Array(candidate.lowercased()))
            if d <= 2, best.map({ d < $0.1 }) ?? true { best = (candidate, d) }
        }
        return best?.0
    }

    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
