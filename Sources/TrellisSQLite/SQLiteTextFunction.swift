import CSQLite
import Trellis

/// The SQL function `trellis_text(op, text, operand, options)` (https://sqlite.org/c3ref/create_function.html):
/// 1 when `text` satisfies the comparison `op` (1 `==`, 2 BEGINSWITH, 3 ENDSWITH, 4 CONTAINS,
/// 5 LIKE, 6 MATCHES) with the folded `operand` under `options` (1 `[c]`, 2 `[d]`), else 0
/// (also for NULL or non-text values). It runs ``PredicateTextMatcher``, the code the
/// in-memory store runs, so both give the same answers: Unicode case and diacritic
/// folding, where SQLite's `NOCASE` and `LIKE` fold ASCII letters only.
///
/// The matcher for an operand is built once per statement run and kept as the operand's
/// auxiliary data (`sqlite3_set_auxdata`); ASCII text is folded byte by byte, other text
/// through Foundation. Registered on every connection, deterministic and innocuous.
enum SQLiteTextFunction {
    static func code(of op: PredicateOperator) -> Int {
        switch op {
        case .equal: return 1
        case .beginsWith: return 2
        case .endsWith: return 3
        case .contains: return 4
        case .like: return 5
        case .matches: return 6
        default: return 0
        }
    }

    static func op(of code: Int32) -> PredicateOperator? {
        switch code {
        case 1: return .equal
        case 2: return .beginsWith
        case 3: return .endsWith
        case 4: return .contains
        case 5: return .like
        case 6: return .matches
        default: return nil
        }
    }

    /// Registers the function on `handle`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(
            handle, "trellis_text", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
            nil, trellisTextFunction, nil, nil, nil)
    }
}

private func releaseMatcher(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<PredicateTextMatcher>.fromOpaque(pointer).release()
}

private func trellisTextFunction(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments, count == 4, sqlite3_value_type(arguments[1]) == SQLITE_TEXT else {
        sqlite3_result_int(context, 0)
        return
    }
    let matcher: PredicateTextMatcher
    if let aux = sqlite3_get_auxdata(context, 2) {
        matcher = Unmanaged<PredicateTextMatcher>.fromOpaque(aux).takeUnretainedValue()
    } else {
        guard let op = SQLiteTextFunction.op(of: sqlite3_value_int(arguments[0])) else {
            sqlite3_result_error(context, "trellis_text: unknown comparison", -1)
            return
        }
        let operand = text(arguments[2])
        let options = PredicateOptions(rawValue: Int(sqlite3_value_int(arguments[3])))
        do {
            matcher = try PredicateTextMatcher(op: op, operand: operand, options: options)
        } catch {
            sqlite3_result_error(context, "trellis_text: the regular expression does not compile", -1)
            return
        }
        sqlite3_set_auxdata(context, 2, Unmanaged.passRetained(matcher).toOpaque(), releaseMatcher)
    }
    let bytes = sqlite3_value_text(arguments[1])
    let length = Int(sqlite3_value_bytes(arguments[1]))
    let matched = matcher.matches(utf8: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : length))
    sqlite3_result_int(context, matched ? 1 : 0)
}

private func text(_ value: OpaquePointer?) -> String {
    guard let bytes = sqlite3_value_text(value) else { return "" }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
}
