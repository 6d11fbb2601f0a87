import Foundation

/// Coercion of comparison values to the attribute's type, with the importer's rules
/// (``JSONCoercion``): a number written in the predicate reads as the JSON number with the
/// same digits would (`2.0` and `1e3` fit an integer attribute; `0.1` for a `float`
/// attribute is the `Float` nearest 0.1, as stored; a decimal keeps every digit), a string
/// for a decimal attribute must be a numeric string (`"1.5"`, not `"1.5abc"`), and NaN
/// (which no store holds, and SQLite would turn into NULL) is refused.
extension PredicateResolver {
    /// `value` as a value of `attribute`'s type; nil for `nil` when allowed.
    func coerce(
        _ value: PredicateValue, to attribute: AttributeDescription, subject: String, _ c: PredicateComparison,
        _ entity: ResolvedEntity, allowingNil: Bool
    ) throws(QueryError) -> AttributeValue? {
        let type = attribute.type
        func mismatch(_ fix: String = "") -> QueryError {
            valueError(.typeMismatch, "\(subject) cannot be compared with \(value.kindDescription) (\(value))" + fix, c, entity)
        }
        func again(_ other: PredicateValue) throws(QueryError) -> AttributeValue? {
            try coerce(other, to: attribute, subject: subject, c, entity, allowingNil: allowingNil)
        }
        switch value {
        case .null:
            guard allowingNil else {
                throw valueError(.typeMismatch, "\(c.op.rawValue) cannot compare with nil; use == nil or != nil", c, entity)
            }
            return nil
        case .list:
            throw valueError(.typeMismatch, "a list ({…}) goes with IN or BETWEEN, not \(c.op.rawValue)", c, entity)
        case .objectID:
            throw mismatch("; object IDs compare with relationships")
        case .value(let v):
            switch v {
            case .string(let s): return try again(.string(s))
            case .integer(let i): return try again(.integer(i))
            case .double(let d): return try again(.double(d))
            case .bool(let b): return try again(.bool(b))
            case .date(let d): return try again(.date(d))
            case .decimal(let d):
                guard !d.isNaN else { throw valueError(.typeMismatch, "\(subject) cannot be compared with NaN", c, entity) }
                if type == .decimal { return .decimal(d) }
                return try again(.number(d.description))
            default:
                if ModelResolver.value(v, fits: type) { return v }
                throw mismatch()
            }
        case .string(let s):
            switch type {
            case .string: return .string(s)
            case .date:
                guard let date = RFC3339.date(from: s) ?? RFC3339.date(fromFullDate: s) else {
                    throw mismatch("; write the date as RFC 3339 / ISO 8601 text, \"2011-08-21T18:02:52Z\"")
                }
                return .date(date)
            case .uuid:
                guard let uuid = UUID(uuidString: s) else { throw mismatch("; write a UUID as 8-4-4-4-12 hexadecimal digits") }
                return .uuid(uuid)
            case .uri:
                guard let url = URL(string: s) else { throw mismatch() }
                return .uri(url)
            case .decimal:
                return try number(.string(s), as: type, mismatch: mismatch)
            default:
                throw mismatch(type.isInteger || type == .double || type == .float ? "; write the number without quotes" : "")
            }
        case .integer(let i):
            if let range = type.integerRange {
                guard range.contains(i) else { throw mismatch("; \(i) is outside \(type)'s range \(range)") }
                return .integer(i)
            }
            switch type {
            case .double, .float, .decimal, .boolean: return try number(.number(JSONNumber(i)), as: type, mismatch: mismatch)
            case .string: throw mismatch("; quote it to compare text: \"\(i)\"")
            default: throw mismatch()
            }
        case .double(let d):
            guard !d.isNaN else { throw valueError(.typeMismatch, "\(subject) cannot be compared with NaN", c, entity) }
            switch type {
            case .double: return .double(d)
            case .float:
                let f = Float(d)
                guard f.isFinite || d.isInfinite else { throw mismatch("; out of range for Float (magnitude above 3.4028235e38)") }
                return .double(Double(f))
            case .string: throw mismatch("; quote it to compare text")
            default:
                guard d.isFinite else { throw mismatch() }
                if type.isInteger, let i = Int64(exactly: d) { return try again(.integer(i)) }
                return try again(.number(JSONNumber.shortestText(d)))
            }
        case .number(let text):
            switch type {
            case .string: throw mismatch("; quote it to compare text: \"\(text)\"")
            case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean:
                return try number(.string(PredicateResolver.numericString(text)), as: type, mismatch: mismatch)
            default: throw mismatch()
            }
        case .bool(let b):
            guard type == .boolean else { throw mismatch() }
            return .bool(b)
        case .date(let d):
            guard type == .date else { throw mismatch() }
            guard d.timeIntervalSinceReferenceDate.isFinite else { throw mismatch("; the date is not finite") }
            return .date(d)
        }
    }

    /// A number (as JSON) read as `type` by the importer's rules; the reason it does not fit in the message.
    private func number(_ json: JSONValue, as type: AttributeType, mismatch: (String) -> QueryError) throws(QueryError) -> AttributeValue {
        do {
            guard let value = try JSONCoercion.value(from: json, as: type) else { throw mismatch("") }
            return value
        } catch let error as CoercionError {
            if type.isInteger, let range = type.integerRange, error.code == .overflow {
                throw mismatch("; it is outside \(type)'s range \(range)")
            }
            throw mismatch(": \(error.message)")
        } catch let error as QueryError {
            throw error
        } catch {
            throw mismatch("")
        }
    }

    /// Number text from the predicate (`.5`, `5.`, `+5` allowed there) as a numeric string
    /// ``JSONCoercion`` reads (`0.5`, `5`, `5`).
    static func numericString(_ text: String) -> String {
        var t = Substring(text)
        var sign = ""
        if t.first == "-" || t.first == "+" {
            if t.first == "-" { sign = "-" }
            t = t.dropFirst()
        }
        if t.first == "." { t = "0" + t }
        var out = String(t)
        if let dot = out.firstIndex(of: ".") {
            let after = out.index(after: dot)
            if after == out.endIndex || !(out[after].isASCII && out[after].isNumber) { out.insert("0", at: after) }
        }
        return sign + out
    }

    // MARK: - Integers compared with fractions

    /// The operand of a comparison with an integer attribute (or a count): an integer, or
    /// a number between two integers (`1.5`: floor 1, ceiling 2). Nil when the value is
    /// not a number (the caller reports the mismatch).
    enum IntegerOperand {
        case exact(Int64)
        case fraction(floor: Int64, ceiling: Int64)
    }

    /// `value` as an ``IntegerOperand`` of `range`; a number beyond the range is an error,
    /// and so is a number that is not one.
    func integerOperand(
        _ value: PredicateValue, in range: ClosedRange<Int64>, subject: String, typeName: String,
        _ c: PredicateComparison, _ entity: ResolvedEntity
    ) throws(QueryError) -> IntegerOperand? {
        let decimal: Decimal
        switch value {
        case .integer(let i), .value(.integer(let i)):
            return try check(.exact(i))
        case .double(let d), .value(.double(let d)):
            guard d.isFinite else { return nil }
            if let i = Int64(exactly: d) { return try check(.exact(i)) }
            guard let parsed = Decimal(string: JSONNumber.shortestText(d), locale: nil) else { return nil }
            decimal = parsed
        case .number(let text):
            if let i = Int64(text) { return try check(.exact(i)) }
            guard let parsed = try? JSONCoercion.decimal(from: .string(PredicateResolver.numericString(text))) else {
                throw outOfRange(text)
            }
            decimal = parsed
        case .value(.decimal(let d)):
            guard !d.isNaN else { return nil }
            decimal = d
        default:
            return nil
        }
        var low = decimal
        var high = decimal
        var d = decimal
        NSDecimalRound(&low, &d, 0, .down)
        NSDecimalRound(&high, &d, 0, .up)
        guard let floor = Int64(low.description), let ceiling = Int64(high.description) else { throw outOfRange(decimal.description) }
        return try check(floor == ceiling ? .exact(floor) : .fraction(floor: floor, ceiling: ceiling))

        func outOfRange(_ text: String) -> QueryError {
            valueError(.typeMismatch, "\(subject) cannot be compared with a number (\(text)); it is outside \(typeName)'s range \(range)", c, entity)
        }
        func check(_ operand: IntegerOperand) throws(QueryError) -> IntegerOperand {
            switch operand {
            case .exact(let i) where !range.contains(i): throw outOfRange(String(i))
            case .fraction(let f, let ceiling) where !range.contains(f) || !range.contains(ceiling): throw outOfRange(value.description)
            default: return operand
            }
        }
    }

    /// `path op operand` for an integer-valued key path, where some operands may be fractions:
    /// `x > 1.5` is `x >= 2`, `x <= 1.5` is `x <= 1`, `x == 1.5` holds for no object and
    /// `x != 1.5` for every one (as `!=` a value holds for an object without one).
    static func integerComparison(
        _ op: PredicateOperator, _ operands: [IntegerOperand],
        _ make: (PredicateOperator, [Int64]) -> ResolvedPredicate
    ) -> ResolvedPredicate {
        func low(_ o: IntegerOperand) -> Int64 {
            if case .fraction(_, let c) = o { return c }
            if case .exact(let i) = o { return i }
            return 0
        }
        func high(_ o: IntegerOperand) -> Int64 {
            if case .fraction(let f, _) = o { return f }
            if case .exact(let i) = o { return i }
            return 0
        }
        func isExact(_ o: IntegerOperand) -> Bool {
            if case .exact = o { return true }
            return false
        }
        switch op {
        case .equal: return isExact(operands[0]) ? make(.equal, [low(operands[0])]) : .constant(false)
        case .notEqual: return isExact(operands[0]) ? make(.notEqual, [low(operands[0])]) : .constant(true)
        case .less: return isExact(operands[0]) ? make(.less, [low(operands[0])]) : make(.lessOrEqual, [high(operands[0])])
        case .lessOrEqual: return make(.lessOrEqual, [high(operands[0])])
        case .greater: return isExact(operands[0]) ? make(.greater, [high(operands[0])]) : make(.greaterOrEqual, [low(operands[0])])
        case .greaterOrEqual: return make(.greaterOrEqual, [low(operands[0])])
        case .between: return make(.between, [low(operands[0]), high(operands[1])])
        case .in: return make(.in, operands.filter(isExact).map(low))
        default: return .constant(false)
        }
    }
}
