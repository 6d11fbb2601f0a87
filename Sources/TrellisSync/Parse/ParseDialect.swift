import Foundation
import Trellis

/// The Parse REST API (https://docs.parseplatform.org/rest/guide/): queries, keyset pages
/// and typed values.
///
/// **Keyset paging.** Pages are ordered `order=updatedAt,objectId` and each next page asks
/// for the rows after the last one, on the *pair*:
///
///     where={"$or":[{"updatedAt":{"$gt":D}},{"updatedAt":D,"objectId":{"$gt":ID}}]}
///
/// with `D` the Parse Date `{"__type":"Date","iso":…}` of the last row's stamp (its exact
/// text) and `ID` its `objectId`. More rows sharing one millisecond than fit in a page are
/// thus neither lost nor read twice, and rows written meanwhile (a later `updatedAt`) come
/// at the end of the walk. `skip` is never used (it shifts under writes), and `limit` is
/// always sent (the server's default is 100): the resource's `limit` parameter, or 1000.
///
/// **Typed values** read into attributes and relationships (``convert(_:)``): `Date` →
/// its `iso` text (a `date` attribute reads it to the millisecond), `Pointer` → its
/// `objectId` (a to-one relationship by identifier, a placeholder when the object is not
/// stored yet), `File` → its `url` (nothing is downloaded), `GeoPoint` →
/// `{"latitude": …, "longitude": …}` (a `json` attribute, or two `double` attributes
/// mapped to `location.latitude` and `location.longitude`), `Bytes` → its `base64` text (a
/// `binary` attribute), `Relation` → removed, with a diagnostic (a relation is fetched
/// with its own query, not inlined); any other `__type` is left as it is, with a diagnostic.
public enum ParseDialect {
    /// The keyset condition: rows after (`stamp`, `objectId`) in `order=field,objectId`.
    static func keysetWhere(field: String, stamp: String, objectId: String) -> JSONValue {
        let date: JSONValue = ["__type": "Date", "iso": .string(stamp)]
        return ["$or": [[field: ["$gt": date]], [field: date, "objectId": ["$gt": .string(objectId)]]]]
    }

    /// Rows whose `field` is at or after `stamp`.
    static func sinceWhere(field: String, stamp: String) -> JSONValue {
        [field: ["$gte": ["__type": "Date", "iso": .string(stamp)]]]
    }

    /// `conditions` joined with `$and` (one condition as it is; none: nil).
    static func combine(_ conditions: [JSONValue]) -> JSONValue? {
        switch conditions.count {
        case 0: return nil
        case 1: return conditions[0]
        default: return ["$and": .array(conditions)]
        }
    }

    /// The page size sent when the resource sets none.
    static let defaultLimit = 1000

    /// A remark about a record's value.
    struct Remark {
        let path: JSONPath
        let message: String
    }

    /// The record with its typed values replaced (see the type's documentation); nil when
    /// it has none (the common case: no copy is made). `remarks` gets one entry per
    /// `Relation` or unknown `__type`, located under `path`.
    static func convert(_ value: JSONValue, at path: @autoclosure () -> JSONPath, remarks: inout [Remark]) -> JSONValue? {
        switch value {
        case .object(let object):
            if let type = object["__type"]?.stringValue { return typed(type, object, at: path(), remarks: &remarks) }
            var copy: JSONObject?
            for i in 0..<object.count {
                let member = object.value(at: i)
                let key = object.key(at: i)
                guard member.isContainer else {
                    // A scalar after a converted member is kept in the copy too.
                    copy?.append(key: key, value: member)
                    continue
                }
                if case .object(let inner) = member, inner["__type"]?.stringValue == "Relation" {
                    remarks.append(
                        Remark(
                            path: path().appending(key: key),
                            message: "a Parse Relation (class \(inner["className"]?.stringValue ?? "?")) is not inlined in records; skipped"))
                    if copy == nil { copy = JSONObject(object.members.prefix(i).map { ($0.key, $0.value) }) }
                    continue
                }
                if let converted = convert(member, at: path().appending(key: key), remarks: &remarks) {
                    if copy == nil { copy = JSONObject(object.members.prefix(i).map { ($0.key, $0.value) }) }
                    copy!.append(key: key, value: converted)
                } else if copy != nil {
                    copy!.append(key: key, value: member)
                }
            }
            return copy.map(JSONValue.object)
        case .array(let elements):
            var copy: [JSONValue]?
            for (i, element) in elements.enumerated() where element.isContainer {
                if let converted = convert(element, at: path().appending(index: i), remarks: &remarks) {
                    if copy == nil { copy = elements }
                    copy![i] = converted
                }
            }
            return copy.map(JSONValue.array)
        default:
            return nil
        }
    }

    private static func typed(_ type: String, _ object: JSONObject, at path: JSONPath, remarks: inout [Remark]) -> JSONValue? {
        switch type {
        case "Date":
            if let iso = object["iso"], case .string = iso { return iso }
        case "Pointer":
            if let id = object["objectId"], case .string = id { return id }
        case "File":
            if let url = object["url"], case .string = url { return url }
        case "GeoPoint":
            if let latitude = object["latitude"], let longitude = object["longitude"] {
                return ["latitude": latitude, "longitude": longitude]
            }
        case "Bytes":
            if let base64 = object["base64"], case .string = base64 { return base64 }
        case "Object":
            // An included pointer (`include=`): the object itself, its typed values converted.
            var rest = JSONObject()
            for (key, value) in object where key != "__type" && key != "className" { rest.append(key: key, value: value) }
            return convert(.object(rest), at: path, remarks: &remarks) ?? .object(rest)
        default:
            remarks.append(Remark(path: path, message: "unknown Parse __type \(JSONWriter.quoted(type)); the value is left as it is"))
            return nil
        }
        remarks.append(Remark(path: path, message: "a Parse \(type) without its fields; the value is left as it is"))
        return nil
    }
}

extension JSONValue {
    var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }
}
