import Foundation
import Trellis

/// How each `attributeType` Xcode writes maps to a Trellis ``AttributeType`` (and back),
/// and how `defaultValueString` is parsed and written for each.
///
/// | Xcode `attributeType` | Trellis     | notes                                                       |
/// |-----------------------|-------------|-------------------------------------------------------------|
/// | `Integer 16/32/64`    | `integer16/32/64` | default must fit the width                            |
/// | `Decimal`             | `decimal`   | default parsed with `.` as separator                        |
/// | `Double`, `Float`     | `double`, `float` | `Float` defaults rounded to `Float`                   |
/// | `String`              | `string`    | default verbatim                                            |
/// | `Boolean`             | `boolean`   | default `YES`/`NO`                                          |
/// | `Date`                | `date`      | default in seconds since 2001-01-01 00:00:00 UTC            |
/// | `Binary`              | `binary`    | Xcode offers no default; one found is kept verbatim         |
/// | `UUID`, `URI`         | `uuid`, `uri` |                                                           |
/// | `Transformable`       | `json`      | Groot stores JSON arrays/objects there; transformer kept    |
/// | `Composite`           | `json`      | an object of the composite's fields; definition kept        |
/// | `Undefined`, `Object ID` | —        | skipped with a warning (transient-only types); XML kept     |
/// | anything else         | —           | error `unknownAttributeType`                                |
enum CoreDataAttributeType {
    /// Xcode's spelling → Trellis type, for the types Trellis stores.
    static let trellisTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64,
        "Decimal": .decimal, "Double": .double, "Float": .float, "String": .string,
        "Boolean": .boolean, "Date": .date, "Binary": .binary, "UUID": .uuid, "URI": .uri,
        "Transformable": .json, "Composite": .json,
    ]

    /// Types Xcode offers only for transient attributes; Trellis skips them with a warning.
    static let skippedTypes: Set<String> = ["Undefined", "Object ID"]

    /// Every spelling the reader understands, for error messages.
    static var knownNames: [String] { (Array(trellisTypes.keys) + Array(skippedTypes)).sorted() }

    /// The `attributeType` the writer uses for `type`.
    static func xcodeName(for type: AttributeType) -> String {
        switch type {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binary: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .json: return "Transformable"
        }
    }

    /// The `usesScalarValueType` Xcode writes for a new attribute of `type` in a Swift
    /// model: `YES` for numbers and booleans, `NO` for dates, absent otherwise.
    static func usesScalarValueType(_ type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: return "YES"
        case .date: return "NO"
        default: return nil
        }
    }

    // MARK: - Default values

    /// Parses Xcode's `defaultValueString` for `type`; nil when the text does not fit.
    /// `binary` and `json` have no text form in Xcode and always give nil.
    static func parseDefault(_ text: String, as type: AttributeType) -> AttributeValue? {
        switch type {
        case .string:
            return .string(text)
        case .integer16, .integer32, .integer64:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let value = Int64(trimmed), type.integerRange?.contains(value) ?? false else { return nil }
            return .integer(value)
        case .decimal:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard isDecimalLiteral(trimmed),
                let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            return .decimal(value)
        case .double:
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
            return .double(value)
        case .float:
            guard let value = Float(text.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
            return .double(Double(value))
        case .boolean:
            switch text.trimmingCharacters(in: .whitespaces) {
            case "YES", "yes", "true", "1": return .bool(true)
            case "NO", "no", "false", "0": return .bool(false)
            default: return nil
            }
        case .date:
            guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            return UUID(uuidString: text.trimmingCharacters(in: .whitespaces)).map(AttributeValue.uuid)
        case .uri:
            return URL(string: text).map(AttributeValue.uri)
        case .binary, .json:
            return nil
        }
    }

    /// Xcode's `defaultValueString` for `value` of an attribute of `type`; nil when Core
    /// Data has no text form for it (binary and JSON values, non-finite numbers). Floats use the shortest text
    /// of the `Float` (`0.1`, not `0.10000000149011612`).
    static func formatDefault(_ value: AttributeValue, type: AttributeType) -> String? {
        if type == .float, case .double(let d) = value { return Float(d).isFinite ? Float(d).description : nil }
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .decimal(let d): return NSDecimalNumber(decimal: d).description(withLocale: Locale(identifier: "en_US_POSIX"))
        case .double(let d): return d.isFinite ? d.description : nil
        case .bool(let b): return b ? "YES" : "NO"
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) { return String(whole) }
            return seconds.description
        case .uuid(let u): return u.uuidString
        case .uri(let u): return u.absoluteString
        case .binary, .json: return nil
        }
    }

    /// `[+-]digits[.digits][e[+-]digits]` (or `.digits`), as Xcode writes decimals.
    private static func isDecimalLiteral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if let first = scalars.first, first == "+" || first == "-" { scalars = scalars.dropFirst() }
        func digits() -> Int {
            var n = 0
            while let s = scalars.first, ("0"..."9").contains(s) {
                scalars = scalars.dropFirst()
                n += 1
            }
            return n
        }
        var count = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }
}
