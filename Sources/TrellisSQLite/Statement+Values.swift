import CSQLite
import Foundation
import Trellis

/// Attribute values in SQLite columns. Every value round-trips exactly:
///
/// | attribute type | column | stored as |
/// |---|---|---|
/// | string | TEXT | UTF-8, exact length (NUL characters kept) |
/// | integer16/32/64 | INTEGER | the Int64 |
/// | decimal | TEXT | `Decimal.description` (exact digits, `12345678901234567890.123`) |
/// | double, float | REAL | the Double (NaN cannot be stored: SQLite turns it into NULL) |
/// | boolean | INTEGER | 0 or 1 |
/// | date | REAL | `timeIntervalSince1970` (Unix seconds; `datetime(x, 'unixepoch', 'subsec')`) |
/// | binary | BLOB | the bytes (an empty `Data` is a zero-length BLOB, not NULL) |
/// | UUID | TEXT | lowercase 8-4-4-4-12 |
/// | URI | TEXT | `absoluteString` |
/// | JSON | TEXT | compact JSON text from `JSONWriter`, read back with `JSONReader` (https://sqlite.org/json1.html functions apply) |
///
/// Dates: a `Date` holds seconds since 2001 as a Double; reading the stored Unix seconds
/// back gives the identical `Date` whenever `Date(timeIntervalSince1970: d.timeIntervalSince1970) == d`,
/// which holds for every instant with millisecond (in fact microsecond) precision from 1985
/// on, and so for the dates the importer makes from RFC 3339 text.
extension Statement {
    /// Binds `value` (NULL for nil) at parameter `index`, in the storage of its case.
    /// - Throws: `StoreError` `.engine` for a JSON value that cannot be written (a non-finite
    ///   number); `.valueTooLarge` for text or bytes longer than the store's length limit.
    @inline(__always)
    func bind(_ value: AttributeValue?, at index: Int32) throws(StoreError) {
        guard let value else {
            bindNull(index)
            return
        }
        switch value {
        case .string(let s): try bind(s, at: index)
        case .integer(let i): bind(i, at: index)
        case .decimal(let d): try bind(d.description, at: index)
        case .double(let d): bind(d, at: index)
        case .bool(let b): bind(b ? 1 as Int64 : 0, at: index)
        case .date(let d): bind(d.timeIntervalSince1970, at: index)
        case .binary(let data): try bind(data, at: index)
        case .uuid(let u): try bind(u, at: index)
        case .uri(let url): try bind(url.absoluteString, at: index)
        case .json(let json):
            let text: String
            do {
                text = try JSONWriter.string(for: json)
            } catch {
                throw StoreError(.engine, message: "cannot store a JSON value: \(error)")
            }
            try bind(text, at: index)
        }
    }

    /// Binds a UUID as 36 lowercase characters, without building an intermediate `String`.
    func bind(_ uuid: UUID, at index: Int32) throws(StoreError) {
        let hex: StaticString = "0123456789abcdef"
        let source = uuid.uuid
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 40 bytes ≥ 36
        withUnsafeBytes(of: source) { raw in
            withUnsafeMutableBytes(of: &text) { out in
                var o = 0
                for i in 0..<16 {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[o] = UInt8(ascii: "-")
                        o += 1
                    }
                    let b = raw[i]
                    out[o] = hex.utf8Start[Int(b >> 4)]
                    out[o + 1] = hex.utf8Start[Int(b & 0x0F)]
                    o += 2
                }
            }
        }
        try withUnsafeBytes(of: &text) { (raw) throws(StoreError) in try bindText(UnsafeRawBufferPointer(rebasing: raw[0..<36]), at: index) }
    }

    /// The value of `column` read as `type`; nil for NULL.
    /// - Throws: `StoreError` `.engine` when the stored text cannot be read as the type
    ///   (a decimal, UUID, URI or JSON value written by something other than Trellis).
    @inline(__always)
    func value(_ column: Int32, as type: AttributeType) throws(StoreError) -> AttributeValue? {
        if isNull(column) { return nil }
        switch type {
        case .string: return .string(string(column))
        case .integer16, .integer32, .integer64: return .integer(int64(column))
        case .double, .float: return .double(double(column))
        case .boolean: return .bool(int64(column) != 0)
        case .date: return .date(Date(timeIntervalSince1970: double(column)))
        case .binary: return .binary(data(column))
        case .decimal:
            let text = string(column)
            guard let decimal = Decimal(string: text, locale: nil), !decimal.isNaN || text == "NaN" else {
                throw unreadable(column, type, text)
            }
            return .decimal(decimal)
        case .uuid:
            let text = string(column)
            guard let uuid = UUID(uuidString: text) else { throw unreadable(column, type, text) }
            return .uuid(uuid)
        case .uri:
            let text = string(column)
            guard let url = URL(string: text) else { throw unreadable(column, type, text) }
            return .uri(url)
        case .json:
            do {
                return .json(try JSONReader.parse(string(column)))
            } catch {
                let name = String(cString: sqlite3_column_name(handle, column))
                throw StoreError(.engine, message: "column \(name) holds text that is not valid JSON (\(error))", details: "SQL: \(sql)")
            }
        }
    }

    private func unreadable(_ column: Int32, _ type: AttributeType, _ text: String) -> StoreError {
        let name = String(cString: sqlite3_column_name(handle, column))
        return StoreError(.engine, message: "column \(name) holds text that is not a \(type) value", details: "SQL: \(sql)")
    }
}
