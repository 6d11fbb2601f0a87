import Foundation
import Trellis

/// A fetched page read: its JSON body and its records.
struct DecodedPage {
    /// The body (nil for `304 Not Modified`).
    var body: JSONValue?
    /// The records, in order.
    var records: [JSONValue]
    /// Where the record array is in the body (`$.results`), for error paths.
    var recordsPath: JSONPath
    /// The server answered `304 Not Modified` (the stored copy is current).
    var notModified: Bool
}

/// Reads page bodies: JSON (RFC 8259) with the record array at the resource's `records`
/// key path. A body that is not JSON is an error with its line and column (and what the
/// body looks like: an HTML page's title); a key path that selects nothing or no array is an
/// error that lists the keys the body has, and the body's own message when it is an error
/// object (`{"status": "failure", "error": "upstream timeout"}` sent with `200`).
enum PageDecoder {
    static func decode(_ response: HTTPResponse, records keyPath: JSONKeyPath?) throws -> DecodedPage {
        let recordsPath = keyPath.map(JSONPath.init) ?? .root
        if response.status == 304 { return DecodedPage(body: nil, records: [], recordsPath: recordsPath, notModified: true) }
        guard !response.body.isEmpty else {
            throw SyncError(.malformedPage, message: "HTTP \(response.status) with an empty body (expected JSON)", status: response.status)
        }
        let body: JSONValue
        do {
            body = try JSONReader.parse(response.body)
        } catch {
            var message = "the body is not JSON"
            let type = response.headers["content-type"]
            if let type { message += " (Content-Type \(type))" }
            if type?.lowercased().contains("html") == true || response.body.prefix(256).contains(UInt8(ascii: "<")),
                let title = BodyMessage.message(in: response.body, contentType: type), !title.hasPrefix("{"), !title.hasPrefix("[")
            {
                message += ", it looks like an HTML page: \(JSONWriter.quoted(String(title.prefix(80))))"
            }
            if error.code == .unexpectedEndOfInput { message += "; it ends early (\(response.body.count) bytes)" }
            throw SyncError(
                .malformedPage, message: message + ": " + error.message, line: error.line, column: error.column,
                status: response.status)
        }
        let value: JSONValue
        if let keyPath {
            guard let found = keyPath.lookup(in: body).value, !found.isNull else {
                throw SyncError(
                    .recordsNotFound,
                    message: "the records key path '\(keyPath)' selects nothing in the body\(keysPhrase(body))"
                        + serverSays(body), path: recordsPath, status: response.status)
            }
            value = found
        } else {
            value = body
        }
        guard case .array(let records) = value else {
            let hint = keyPath == nil ? " (set \"records\" to the key path of the record array)" : ""
            throw SyncError(
                .recordsNotFound,
                message: "expected an array of records, found \(SourceFields.kindPhrase(value))\(hint)\(keysPhrase(value))"
                    + serverSays(body), path: recordsPath, status: response.status)
        }
        return DecodedPage(body: body, records: records, recordsPath: recordsPath, notModified: false)
    }

    /// `; the server says: upstream timeout` when the body is an error object (a `200` whose
    /// body is an error): its `error`, `message`, `error.message`, `errors[0].message` or
    /// `detail` (``BodyMessage``), at most 300 characters.
    static func serverSays(_ body: JSONValue) -> String {
        guard let message = BodyMessage.jsonMessage(body).flatMap(BodyMessage.shorten) else { return "" }
        return "; the server says: " + message
    }

    /// `; the body's keys: data, meta` for an object.
    static func keysPhrase(_ value: JSONValue) -> String {
        guard case .object(let o) = value else { return "" }
        let keys = o.keys.prefix(12).joined(separator: ", ")
        return o.isEmpty ? "; it is an empty object" : "; its keys: \(keys)\(o.count > 12 ? ", …" : "")"
    }
}
