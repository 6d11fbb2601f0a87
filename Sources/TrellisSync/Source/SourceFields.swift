import Foundation
import Trellis

/// What reading one source file shares: the file name and environment for errors and
/// `${env:NAME}`, and the secrets found so far.
final class SourceReading {
    let file: String?
    let environment: [String: String]
    /// What an unset `${env:NAME}` reads as; nil: it is an error.
    let unsetVariableValue: String?
    /// Values substituted from the environment (all secrets).
    var secrets: [String] = []

    init(file: String?, environment: [String: String], unsetVariableValue: String? = nil) {
        self.file = file
        self.environment = environment
        self.unsetVariableValue = unsetVariableValue
    }

    func error(_ code: SyncError.Code, _ path: JSONPath, _ message: String) -> SyncError {
        SyncError(code, message: message, file: file, path: path)
    }

    /// `text` with `${env:NAME}` replaced; `${incremental.start}` is kept when `allowingStart`.
    /// - Throws: `.missingEnvironmentVariable` naming the variable; `.invalidValue` for any
    ///   other `${…}`.
    func substitute(_ text: String, at path: JSONPath, allowingStart: Bool) throws -> String {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw error(.invalidValue, path, "unterminated '${' in \(JSONWriter.quoted(text))")
            }
            let name = String(rest[open.upperBound..<close])
            if name.hasPrefix("env:") {
                let variable = String(name.dropFirst(4))
                guard !variable.isEmpty else { throw error(.invalidValue, path, "'${env:}' names no variable") }
                guard let value = environment[variable] ?? unsetVariableValue else {
                    throw error(.missingEnvironmentVariable, path, "the environment variable \(variable) is not set")
                }
                secrets.append(value)
                result += value
            } else if name == "incremental.start", allowingStart {
                result += "${incremental.start}"
            } else {
                let allowed = allowingStart ? "${env:NAME} or ${incremental.start}" : "${env:NAME}"
                throw error(.invalidValue, path, "unknown substitution '${\(name)}' (allowed here: \(allowed))")
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}

/// The members of one JSON object of a source file, with its path for errors. Construction
/// rejects keys outside `allowed` (naming the closest allowed key); `null` reads as absent.
struct SourceFields {
    let object: JSONObject
    let path: JSONPath
    let reading: SourceReading

    /// - Parameter what: the object's role in messages (`the client`, `a paginator`).
    init(_ value: JSONValue, at path: JSONPath, what: String, allowed: [String], reading: SourceReading) throws {
        guard case .object(let object) = value else {
            throw reading.error(.wrongType, path, "expected \(what) (an object), found \(SourceFields.kindPhrase(value))")
        }
        for key in object.keys where !allowed.contains(key) {
            var message = "unknown key '\(key)' in \(what)"
            if let suggestion = SourceFields.closest(to: key, in: allowed) { message += " (did you mean '\(suggestion)'?)" }
            message += "; allowed keys: " + allowed.joined(separator: ", ")
            throw reading.error(.unknownKey, path.appending(key: key), message)
        }
        self.object = object
        self.path = path
        self.reading = reading
    }

    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func at(_ key: String) -> JSONPath { path.appending(key: key) }

    /// A string member, `${env:NAME}` substituted.
    func string(_ key: String, allowingStart: Bool = false) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let s) = value else { throw wrongType(key, expected: "a string", found: value) }
        return try reading.substitute(s, at: at(key), allowingStart: allowingStart)
    }

    func requiredString(_ key: String, in what: String) throws -> String {
        guard let s = try string(key) else { throw missing(key, in: what, expected: "a string") }
        return s
    }

    func number(_ key: String, atLeast minimum: Double, exclusive: Bool = false) throws -> Double? {
        guard let value = value(key) else { return nil }
        guard let d = value.doubleValue, d.isFinite else { throw wrongType(key, expected: "a number", found: value) }
        guard exclusive ? d > minimum : d >= minimum else {
            throw reading.error(
                .invalidValue, at(key), "expected a number \(exclusive ? "above" : "at least") \(SourceFields.format(minimum)), found \(SourceFields.format(d))"
            )
        }
        return d
    }

    func integer(_ key: String, atLeast minimum: Int) throws -> Int? {
        guard let value = value(key) else { return nil }
        guard let i = value.intValue else { throw wrongType(key, expected: "an integer", found: value) }
        guard i >= minimum else {
            throw reading.error(.invalidValue, at(key), "expected an integer of at least \(minimum), found \(i)")
        }
        return i
    }

    func keyPath(_ key: String, allowingEmpty: Bool) throws -> JSONKeyPath?? {
        guard let text = try string(key) else { return .none }
        if text.isEmpty {
            guard allowingEmpty else { throw reading.error(.invalidValue, at(key), "expected a key path, found the empty string") }
            return .some(nil)
        }
        do {
            return .some(try JSONKeyPath(parsing: text))
        } catch {
            throw reading.error(.invalidValue, at(key), "not a key path: \(error)")
        }
    }

    func requiredKeyPath(_ key: String, in what: String) throws -> JSONKeyPath {
        guard case .some(.some(let path)) = try keyPath(key, allowingEmpty: false) else {
            throw missing(key, in: what, expected: "a key path")
        }
        return path
    }

    func objectMember(_ key: String) throws -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard case .object(let o) = value else { throw wrongType(key, expected: "an object", found: value) }
        return o
    }

    func missing(_ key: String, in what: String, expected: String) -> SyncError {
        reading.error(.missingKey, path, "\(what) needs \"\(key)\" (\(expected))")
    }

    func wrongType(_ key: String, expected: String, found: JSONValue) -> SyncError {
        reading.error(.wrongType, at(key), "expected \(expected), found \(SourceFields.kindPhrase(found))")
    }

    // MARK: - Helpers

    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    /// The value's JSON text, at most 40 characters (then `…`).
    static func snippet(_ value: JSONValue) -> String {
        let text = (try? JSONWriter.string(for: value)) ?? "\(value)"
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

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
