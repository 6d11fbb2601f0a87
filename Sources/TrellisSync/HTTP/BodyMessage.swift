import Foundation
import Trellis

/// The message of an error response's body, for people: a JSON body's `error` (Parse:
/// `{"code": 101, "error": "Object not found."}` → `Object not found. (Parse error 101)`),
/// `message`, `error.message`, `errors[0].message` or `detail`; an HTML page's `<title>`;
/// otherwise the start of the text. At most 300 characters, whitespace collapsed.
enum BodyMessage {
    static func message(in body: Data, contentType: String?) -> String? {
        guard !body.isEmpty else { return nil }
        if let json = try? JSONReader.parse(body) {
            if let text = jsonMessage(json) { return shorten(text) }
        }
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        if let open = text.range(of: "<title>", options: .caseInsensitive),
            let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
        {
            return shorten(String(text[open.upperBound..<close.lowerBound]))
        }
        return shorten(text)
    }

    static func jsonMessage(_ json: JSONValue) -> String? {
        guard case .object(let o) = json else { return nil }
        if let error = o["error"]?.stringValue {
            if let code = o["code"]?.int64Value { return "\(error) (Parse error \(code))" }
            return error
        }
        if let message = o["message"]?.stringValue { return message }
        if let message = o["error"]?["message"]?.stringValue { return message }
        if let message = o["errors"]?[0]?["message"]?.stringValue { return message }
        if let detail = o["detail"]?.stringValue { return detail }
        return nil
    }

    static func shorten(_ text: String) -> String? {
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard !collapsed.isEmpty else { return nil }
        return collapsed.count > 300 ? String(collapsed.prefix(300)) + "…" : collapsed
    }
}
