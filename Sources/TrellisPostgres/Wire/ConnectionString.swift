import CLibPQ
import Foundation
import Trellis

/// A libpq connection string (a `postgresql://` URI or `key=value …` pairs,
/// https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING) and the form of it
/// messages show: `postgresql://user@host:port/dbname`, never the password.
///
/// Parameters the string leaves out come from the `PG*` environment variables and the
/// password from `~/.pgpass` (`PGPASSFILE`), as libpq defines them.
///
/// One parameter is Trellis's own and is taken out before libpq sees the string: `schema`,
/// the PostgreSQL schema of the store (`postgresql://app@db/catalog?schema=trellis`, or
/// `schema=trellis host=db dbname=catalog`).
struct ConnectionString: Sendable {
    /// The text without `schema` (with any password), only ever passed to libpq.
    let text: String
    /// `postgresql://user@host:port/dbname` from the parts the text gives (`?sslmode=…` and
    /// other options left out); the password never.
    let display: String
    /// The `schema` parameter, when the text has one.
    let schema: String?
    /// ``display`` plus `?schema=NAME` when the text names a schema: how messages name the
    /// store's server and schema (`cannot connect to postgresql://app@db:5432/catalog?schema=trellis: …`).
    var displayWithSchema: String { schema.map { display + "?schema=" + $0 } ?? display }

    /// Parses `text` with libpq (`PQconninfoParse`).
    /// - Throws: `StoreError` `.unavailable` for a string libpq cannot parse; the message
    ///   never repeats a password.
    init(_ given: String) throws(StoreError) {
        let (text, schema) = ConnectionString.takingSchema(from: given)
        self.text = text
        self.schema = schema
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &errorMessage) else {
            var reason = errorMessage.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            for secret in ConnectionString.secrets(in: text) where !secret.isEmpty {
                reason = reason.replacingOccurrences(of: secret, with: "…")
            }
            throw StoreError(.unavailable, message: "invalid PostgreSQL connection string: \(reason)")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        display = ConnectionString.display(values)
    }

    /// `text` without its `schema` parameter, and that parameter's value.
    static func takingSchema(from text: String) -> (String, String?) {
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") {
            guard let question = text.firstIndex(of: "?") else { return (text, nil) }
            var kept: [Substring] = []
            var schema: String?
            for pair in text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false) {
                if pair.hasPrefix("schema=") {
                    schema = String(pair.dropFirst(7)).removingPercentEncoding ?? String(pair.dropFirst(7))
                } else {
                    kept.append(pair)
                }
            }
            let base = String(text[..<question])
            return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
        }
        // key = value pairs; a value may be single-quoted (with \' and \\ inside).
        var kept = ""
        var schema: String?
        var index = text.startIndex
        while index < text.endIndex {
            let start = index
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
            let keyStart = index
            while index < text.endIndex, text[index] != "=", !text[index].isWhitespace { index = text.index(after: index) }
            let key = text[keyStart..<index]
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
            guard index < text.endIndex, text[index] == "=" else {
                kept += text[start..<index]
                continue
            }
            index = text.index(after: index)
            while index < text.endIndex, text[index].isWhitespace { index = text.index(after: index) }
            var value = ""
            if index < text.endIndex, text[index] == "'" {
                index = text.index(after: index)
                while index < text.endIndex, text[index] != "'" {
                    if text[index] == "\\", text.index(after: index) < text.endIndex { index = text.index(after: index) }
                    value.append(text[index])
                    index = text.index(after: index)
                }
                if index < text.endIndex { index = text.index(after: index) }
            } else {
                while index < text.endIndex, !text[index].isWhitespace {
                    if text[index] == "\\", text.index(after: index) < text.endIndex { index = text.index(after: index) }
                    value.append(text[index])
                    index = text.index(after: index)
                }
            }
            if key == "schema" { schema = value } else { kept += text[start..<index] }
        }
        return (kept.trimmingCharacters(in: .whitespaces), schema)
    }

    /// `postgresql://user@host:port/dbname` from parsed parameters (absent parts left out;
    /// a socket directory host is percent-encoded, as libpq's URIs write it).
    static func display(_ values: [String: String]) -> String {
        var text = "postgresql://"
        if let user = values["user"], !user.isEmpty { text += percentEncoded(user) + "@" }
        if let host = values["host"] ?? values["hostaddr"], !host.isEmpty { text += percentEncoded(host) }
        if let port = values["port"], !port.isEmpty { text += ":" + port }
        if let database = values["dbname"], !database.isEmpty { text += "/" + percentEncoded(database) }
        return text
    }

    /// The user, host, port and database of a connected `PGconn` (what libpq chose from the
    /// string, the environment and its defaults), as ``display(_:)`` writes them.
    static func display(of connection: OpaquePointer) -> String {
        var values: [String: String] = [:]
        if let user = PQuser(connection) { values["user"] = String(cString: user) }
        if let host = PQhost(connection) { values["host"] = String(cString: host) }
        if let port = PQport(connection) { values["port"] = String(cString: port) }
        if let database = PQdb(connection) { values["dbname"] = String(cString: database) }
        return display(values)
    }

    private static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// What may be a password in a string libpq could not parse: the value after
    /// `password=` (quoted or not), and the part between `:` and `@` of a URI's user info.
    static func secrets(in text: String) -> [String] {
        var found: [String] = []
        if let range = text.range(of: "password") {
            var rest = text[range.upperBound...].drop { $0 == " " }
            if rest.first == "=" {
                rest = rest.dropFirst().drop { $0 == " " }
                if rest.first == "'" {
                    found.append(String(rest.dropFirst().prefix { $0 != "'" }))
                } else {
                    found.append(String(rest.prefix { $0 != " " && $0 != "&" }))
                }
            }
        }
        if let scheme = text.range(of: "://") {
            let authority = text[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(of: ":") { found.append(String(userInfo[userInfo.index(after: colon)...])) }
            }
        }
        return found
    }
}
