import CSQLite
import Foundation
import Trellis

/// A value as SQLite compares it (storage class and bytes), for matching identity values
/// against scanned rows in Swift exactly as an `=` in SQL would: text compares by UTF-8
/// bytes (not by Unicode canonical equivalence, as Swift's `String ==` does), numbers by
/// value, BLOBs by bytes. See https://sqlite.org/datatype3.html#comparisons.
enum SQLKey: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(ExactText)
    case blob(Data)

    /// The key of `value` as ``Statement/bind(_:at:)`` stores it.
    init(_ value: AttributeValue) throws(StoreError) {
        switch value {
        case .string(let s): self = .text(ExactText(s))
        case .integer(let i): self = .integer(i)
        case .decimal(let d): self = .text(ExactText(d.description))
        case .double(let d): self = .real(d)
        case .bool(let b): self = .integer(b ? 1 : 0)
        case .date(let d): self = .real(d.timeIntervalSince1970)
        case .binary(let data): self = .blob(data)
        case .uuid(let u): self = .text(ExactText(u.uuidString.lowercased()))
        case .uri(let url): self = .text(ExactText(url.absoluteString))
        case .json(let json):
            do {
                self = .text(ExactText(try JSONWriter.string(for: json)))
            } catch {
                throw StoreError(.engine, message: "cannot compare a JSON value: \(error)")
            }
        }
    }

    /// The key of column `column` of the statement's current row.
    init(column: Int32, of statement: Statement) {
        switch sqlite3_column_type(statement.handle, column) {
        case SQLITE_INTEGER: self = .integer(statement.int64(column))
        case SQLITE_FLOAT: self = .real(statement.double(column))
        case SQLITE_TEXT: self = .text(ExactText(statement.string(column)))
        case SQLITE_BLOB: self = .blob(statement.data(column))
        default: self = .null
        }
    }
}

/// A string compared and hashed by its UTF-8 bytes, as SQLite's BINARY collation does.
struct ExactText: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
