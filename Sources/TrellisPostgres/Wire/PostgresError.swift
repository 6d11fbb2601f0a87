import CLibPQ
import Foundation
import Trellis

/// Maps a failed statement's SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html)
/// to ``StoreError``.
///
/// | SQLSTATE | code |
/// |---|---|
/// | 40001 serialization_failure, 40P01 deadlock_detected | `.transactionConflict` (the store retries) |
/// | class 23 (integrity constraint violation) | `.constraintViolation` |
/// | 42501 insufficient_privilege | `.permissionDenied` |
/// | class 08 (connection exception), class 28 (invalid authorization), 3D000 (no such database), 57P01–57P03 (server shutting down or starting) | `.unavailable` |
/// | 25006 read_only_sql_transaction | `.readOnly` |
/// | 53100 disk_full | `.diskFull` |
/// | 54000 program_limit_exceeded | `.valueTooLarge` |
/// | 22021 (a NUL character), 22003 (numeric out of range), 22008 (date out of range), 22P05 | `.unsupportedValue` |
/// | 55P03 lock_not_available, 57014 query_canceled (a lock or statement timeout) | `.busy` |
/// | anything else | `.engine` |
///
/// `message` is the server's primary message; the error keeps the SQLSTATE, the constraint,
/// table, column and hint the server names, and the SQL text as fields (``StoreError``). The
/// server's DETAIL field is left out: it often quotes values (`Key (id)=(42) already
/// exists.`), which stay out of errors.
enum PostgresError {
    /// SQLSTATEs after which the store runs the transaction again.
    static let retryable: Set<String> = ["40001", "40P01"]

    static func code(for sqlState: String) -> StoreError.Code {
        if retryable.contains(sqlState) { return .transactionConflict }
        let errorClass = sqlState.prefix(2)
        switch errorClass {
        case "23": return .constraintViolation
        case "08", "28": return .unavailable
        default: break
        }
        switch sqlState {
        case "42501": return .permissionDenied
        case "3D000", "57P01", "57P02", "57P03": return .unavailable
        case "25006": return .readOnly
        case "53100": return .diskFull
        case "54000": return .valueTooLarge
        case "22021", "22003", "22008", "22P05": return .unsupportedValue
        case "55P03", "57014": return .busy
        default: return .engine
        }
    }

    /// The error a failed result reports (`PQresultErrorField`).
    static func error(from result: OpaquePointer, sql: String?) -> (StoreError, sqlState: String) {
        func field(_ code: Int32) -> String? {
            guard let value = PQresultErrorField(result, code) else { return nil }
            return String(cString: value)
        }
        let sqlState = field(Int32(UInt8(ascii: "C"))) ?? "XX000"
        let message = field(Int32(UInt8(ascii: "M"))) ?? String(cString: PQresultErrorMessage(result))
        let error = StoreError(
            code(for: sqlState), message: message.trimmingCharacters(in: .whitespacesAndNewlines),
            engineCode: .sqlState(sqlState), sql: sql, constraint: field(Int32(UInt8(ascii: "n"))),
            table: field(Int32(UInt8(ascii: "t"))), column: field(Int32(UInt8(ascii: "c"))),
            hint: field(Int32(UInt8(ascii: "H"))))
        return (error, sqlState)
    }
}
