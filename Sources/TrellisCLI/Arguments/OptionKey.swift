import Trellis

/// A command-line option declared once: its name, value name, type, default and help.
///
/// The key is both the declaration (it goes into a ``CommandSpec``'s `options`, which
/// renders the help and drives the parser) and the typed way to read the value back:
///
///     static let store = OptionKey<String>("--store", valueName: "path",
///                                           help: "The SQLite store.", default: "trellis.sqlite")
///     static let at = OptionKey<JSONKeyPath?>("--at", valueName: "key-path", help: "…")
///     static let dryRun = OptionKey<Bool>(flag: "--dry-run", help: "…")
///     …
///     let path: String = arguments[store]          // "trellis.sqlite" when not given
///     let keyPath: JSONKeyPath? = arguments[at]    // nil when not given
///
/// What the declaration says:
/// - `Value` is an ``OptionValue`` (a `String`, a `String`-backed `CaseIterable` enum, a
///   ``JSONKeyPath``, ``Seconds``…), or such a type made `Optional`, or `Bool` for a flag;
/// - without a `default`, an option whose `Value` is not `Optional` is **required**;
/// - a `default` is written as command-line text (`"60"`, `"json"`) and converted like a
///   given value, so it appears once, in the help as in the typed value.
///
/// A value that does not convert is bad usage (exit 64): `invalid value 'soon' for
/// '--busy-timeout'; expected a number of seconds (0 or more)`.
struct OptionKey<Value: Sendable>: OptionDeclaration {
    /// The untyped declaration the parser and the help read.
    let spec: OptionSpec

    /// The same option (name, type, default) with the help a command shows for it
    /// (`--store`: "created when missing" for `import`).
    func with(help: String) -> OptionKey {
        var spec = spec
        spec.help = help
        return OptionKey(spec: spec)
    }

    private init(spec: OptionSpec) { self.spec = spec }
}

extension OptionKey where Value: OptionValue {
    /// An option taking a value: `--name <valueName>`.
    /// - Parameters:
    ///   - default: the value when the option is not given, as command-line text; without
    ///     one, the option is required unless `Value` is `Optional` (then it reads `nil`).
    ///   - allowsEmptyValue: accept `""` (a JSON key may be empty); otherwise `--name=` is bad usage.
    ///   - defaultDescription: for an `Optional` value whose absence the command resolves
    ///     (`--format`: by each file's extension), what that means, shown as `(default: …)`.
    init(
        _ name: String, valueName: String, help: String, default defaultText: String? = nil,
        defaultDescription: String? = nil, allowsEmptyValue: Bool = false
    ) {
        let absent: (any Sendable)? = defaultText == nil ? Value.absentValue : nil
        spec = OptionSpec(
            name: name, valueName: valueName, help: help, allowedValues: Value.allowedValues,
            defaultText: defaultText, defaultDescription: defaultDescription, allowsEmptyValue: allowsEmptyValue,
            convert: { text in try Value(optionText: text) }, absentValue: absent)
    }
}

extension OptionKey {
    /// An option that may be given several times (`--where A --where B`): its values in
    /// command-line order, `[]` when not given.
    init<Element: OptionValue>(repeating name: String, valueName: String, help: String) where Value == [Element] {
        spec = OptionSpec(
            name: name, valueName: valueName, help: help + " Repeatable.", allowedValues: Element.allowedValues,
            defaultText: nil, allowsEmptyValue: false,
            convert: { text throws(OptionValueError) in [try Element(optionText: text)] }, absentValue: [Element](),
            append: { values, text throws(OptionValueError) in
                ((values as? [Element]) ?? []) + [try Element(optionText: text)]
            })
    }
}

extension OptionKey where Value == Bool {
    /// A flag: `--name`, `true` when given.
    init(flag name: String, help: String) {
        spec = OptionSpec(
            name: name, valueName: nil, help: help, allowedValues: nil, defaultText: nil,
            defaultDescription: nil, allowsEmptyValue: false, convert: { _ in true }, absentValue: false)
    }
}

/// An ``OptionKey`` whatever its value type, as a ``CommandSpec`` lists it.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// A positional argument declared once: its value name, help and shape, read back typed
/// (`arguments[files]` is `[String]`).
///
///     static let files = ArgumentKey<[String]>(repeating: "file", help: "A JSON file; '-' reads standard input.")
///     static let input = ArgumentKey<String>("input", help: "The model to convert.")
struct ArgumentKey<Value: Sendable>: ArgumentDeclaration {
    let spec: ArgumentSpec
}

extension ArgumentKey where Value == String {
    /// One required argument: `<valueName>`.
    init(_ valueName: String, help: String) {
        spec = ArgumentSpec(valueName: valueName, help: help, isRequired: true, isRepeating: false)
    }
}

extension ArgumentKey where Value == [String] {
    /// One or more arguments (`<valueName>...`; zero or more, `[<valueName>...]`, when not
    /// required); every remaining positional goes here.
    init(repeating valueName: String, help: String, isRequired: Bool = true) {
        spec = ArgumentSpec(valueName: valueName, help: help, isRequired: isRequired, isRepeating: true)
    }
}

/// An ``ArgumentKey`` whatever its value type, as a ``CommandSpec`` lists it.
protocol ArgumentDeclaration: Sendable {
    var spec: ArgumentSpec { get }
}

// MARK: - Values

/// A type an option's text converts to.
protocol OptionValue: Sendable {
    /// The value `text` spells.
    /// - Throws: ``OptionValueError`` saying what was expected.
    init(optionText text: String) throws(OptionValueError)
    /// The only accepted texts (an enumeration), shown in help as `(values: …)`.
    static var allowedValues: [String]? { get }
    /// The value of an option that is not given and has no default; nil: it is required.
    static var absentValue: Self? { get }
}

extension OptionValue {
    static var allowedValues: [String]? { nil }
    static var absentValue: Self? { nil }
}

/// Why an option's text is not a value of its type; the parser adds the option's name.
struct OptionValueError: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `invalid value 'TEXT' for 'NAME'; expected WHAT`.
        case expected(String)
        /// `invalid value for 'NAME': REASON` (the reason quotes the value itself).
        case invalid(String)
    }
    let kind: Kind

    static func expected(_ what: String) -> OptionValueError { OptionValueError(kind: .expected(what)) }
    static func invalid(_ reason: String) -> OptionValueError { OptionValueError(kind: .invalid(reason)) }

    /// The message for `text` given to `name`.
    func message(text: String, name: String) -> String {
        switch kind {
        case .expected(let what): return "invalid value '\(text)' for '\(name)'; expected \(what)"
        case .invalid(let reason): return "invalid value for '\(name)': \(reason)"
        }
    }
}

extension String: OptionValue {
    init(optionText text: String) { self = text }
}

extension Optional: OptionValue where Wrapped: OptionValue {
    init(optionText text: String) throws(OptionValueError) { self = try Wrapped(optionText: text) }
    static var allowedValues: [String]? { Wrapped.allowedValues }
    /// An optional option reads `nil` when it is not given.
    static var absentValue: Wrapped?? { .some(nil) }
}

/// An enumeration of the texts its cases' raw values spell (`--format json|ndjson`).
extension OptionValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    init(optionText text: String) throws(OptionValueError) {
        guard let value = Self(rawValue: text) else {
            throw .expected("one of: " + Self.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = value
    }

    static var allowedValues: [String]? { allCases.map(\.rawValue) }
}

extension Int: OptionValue {
    /// A decimal integer (`10`, `-3`).
    init(optionText text: String) throws(OptionValueError) {
        guard let value = Int(text) else { throw .expected("an integer") }
        self = value
    }
}

extension JSONKeyPath: OptionValue {
    /// A key path in Trellis's syntax (`statuses`, `response.docs`, `a\.b`).
    init(optionText text: String) throws(OptionValueError) {
        do {
            self = try JSONKeyPath(parsing: text)
        } catch {
            throw .invalid(String(describing: error))
        }
    }
}

/// A duration given in seconds (`60`, `0.5`, `0`): finite, not negative.
struct Seconds: OptionValue, Hashable {
    let value: Double

    init(optionText text: String) throws(OptionValueError) {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw .expected("a number of seconds (0 or more)")
        }
        value = seconds
    }

    /// Whole milliseconds, rounded, at most `Int32.max` (what SQLite's busy timeout takes).
    var milliseconds: Int { Int(min(value * 1000, Double(Int32.max)).rounded()) }
}
