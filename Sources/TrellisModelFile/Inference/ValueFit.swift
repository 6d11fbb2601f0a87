import Trellis

/// Which classes of sampled values an attribute of a recorded model imports (docs/ModelInference.md,
/// "Extending a recorded model"): its type's coercions (``JSONCoercion``) or its
/// transformer's input. Values outside are a conflict with the recorded model.
enum ValueFit {
    /// The classes `attribute` accepts; nil when its transformer is one inference cannot
    /// judge (a transformer bound in Swift, a date format other than Twitter's), which is
    /// left to the import to check.
    ///
    /// A class whose values may or may not fit (a numeric string into an integer, any string
    /// into a `uri`, which also takes relative references) is accepted: the import checks
    /// each value and reports one that does not fit at its path. `integers` is the range of
    /// the integers sampled: a boolean takes 0 and 1.
    static func classes(
        accepting attribute: AttributeDescription, bindings: BindingDeclarations,
        integers: ClosedRange<Int64>? = nil
    ) -> Set<ValueClass>? {
        let numbers = ValueClass.numbers.subtracting([.hugeNumber])
        let numericStrings: Set<ValueClass> = [.integerString, .numericString]
        let scalars = ValueClass.strings.union(ValueClass.numbers)
        var transformer = attribute.transformerName
        if let name = transformer {
            switch bindings.transformers[name] {
            case .builtIn(let base)?: transformer = base
            case .dateFormat(let format)?: return format == ValueClassifier.twitterDateFormat ? [.twitterDate] : nil
            case nil: break
            }
        }
        switch transformer {
        case nil:
            break
        case "iso8601": return [.dateTime, .fullDate]
        case "iso8601-date": return [.fullDate]
        case "epoch-seconds", "epoch-milliseconds": return numbers.union([.integerString])
        case "integer-from-string": return numericStrings.union([.integer])
        case "decimal-from-string": return numbers.union(numericStrings)
        case "string-from-number": return scalars
        case "url": return ValueClass.strings
        case "uuid": return [.uuid, .capitalUUID]
        default: return nil
        }
        switch attribute.type {
        case .json: return Set(ValueClass.allCases)
        case .string: return scalars.union([.boolean])
        case .integer16, .integer32, .integer64: return numericStrings.union([.integer])
        case .decimal, .double, .float: return numbers.union(numericStrings)
        case .boolean:
            // true/false, yes/no (any case), 1/0 as numbers or strings.
            let zeroOrOne = integers.map { $0.lowerBound >= 0 && $0.upperBound <= 1 } ?? false
            return Set<ValueClass>([.boolean, .booleanString, .integerString]).union(zeroOrOne ? [.integer] : [])
        case .date: return [.dateTime, .fullDate, .integer, .fraction]
        // Any URI reference, absolute or relative (RFC 3986), and any base64 text.
        case .uri, .binary: return ValueClass.strings
        case .uuid: return [.uuid, .capitalUUID]
        }
    }
}
