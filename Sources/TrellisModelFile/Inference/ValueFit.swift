import Trellis

/// Which classes of sampled values an attribute of a recorded model imports (docs/ModelInference.md,
/// "Extending a recorded model"): its type's coercions (``JSONCoercion``) or its
/// transformer's input. Values outside are a conflict with the recorded model.
enum ValueFit {
    /// The classes `attribute` accepts; nil when its transformer is one inference cannot
    /// judge (a transformer bound in Swift, a date format other than Twitter's), which is
    /// left to the import to check.
    static func classes(accepting attribute: AttributeDescription, bindings: BindingDeclarations) -> Set<ValueClass>? {
        let numbers = ValueClass.numbers.subtracting([.hugeNumber])
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
        case "integer-from-string": return [.integer, .integerString]
        case "decimal-from-string": return numbers.union([.integerString])
        case "string-from-number": return scalars
        case "url": return [.absoluteURL]
        case "uuid": return [.uuid]
        default: return nil
        }
        switch attribute.type {
        case .json: return Set(ValueClass.allCases)
        case .string: return scalars.union([.boolean])
        case .integer16, .integer32, .integer64: return [.integer, .integerString]
        case .decimal, .double, .float: return numbers.union([.integerString])
        case .boolean: return [.boolean]
        case .date: return [.dateTime, .fullDate, .integer, .fraction]
        case .uri: return [.absoluteURL]
        case .uuid: return [.uuid]
        case .binary: return [.text]
        }
    }
}
