import Trellis

/// The attribute type (and value transformer) for the values of one key: the narrowest
/// type that holds every sampled value, by the widening table of docs/ModelInference.md.
struct AttributeTyping: Equatable, Sendable {
    var type: AttributeType
    /// A built-in transformer name, or ``AttributeTyping/twitterDateName``.
    var transformer: String?

    /// The binding name for Twitter's date format (`{"dateFormat": "EEE MMM dd HH:mm:ss Z yyyy"}`).
    static let twitterDateName = "TwitterDate"

    /// The typing of a non-identity attribute whose values were `classes` (`null` excluded).
    ///
    /// | values | type |
    /// |---|---|
    /// | booleans | boolean |
    /// | integers | integer64 |
    /// | integers and numbers with a fraction | double |
    /// | numbers a double would round (their text does not read back from the nearest double), integers beyond 64 bits | decimal |
    /// | numbers a decimal cannot hold either | json |
    /// | RFC 3339 full-dates | date, `iso8601-date` |
    /// | RFC 3339 date-times (and full-dates) | date, `iso8601` |
    /// | Twitter dates | date, `TwitterDate` (`dateFormat` binding) |
    /// | absolute URLs | uri |
    /// | lowercase UUIDs | uuid |
    /// | any other strings, or strings mixed with numbers, booleans or other strings | string |
    /// | booleans mixed with numbers | json |
    init(classes: [ValueClass]) {
        let set = Set(classes)
        if set == [.boolean] {
            self.init(type: .boolean, transformer: nil)
        } else if set.isSubset(of: ValueClass.numbers) {
            if set.contains(.hugeNumber) {
                self.init(type: .json, transformer: nil)
            } else if set.contains(.preciseNumber) || set.contains(.bigInteger) {
                self.init(type: .decimal, transformer: nil)
            } else if set.contains(.fraction) {
                self.init(type: .double, transformer: nil)
            } else {
                self.init(type: .integer64, transformer: nil)
            }
        } else if set == [.fullDate] {
            self.init(type: .date, transformer: "iso8601-date")
        } else if set.isSubset(of: [.dateTime, .fullDate]) {
            self.init(type: .date, transformer: "iso8601")
        } else if set == [.twitterDate] {
            self.init(type: .date, transformer: AttributeTyping.twitterDateName)
        } else if set == [.absoluteURL] {
            self.init(type: .uri, transformer: nil)
        } else if set == [.uuid] {
            self.init(type: .uuid, transformer: nil)
        } else if !set.isDisjoint(with: ValueClass.strings) {
            self.init(type: .string, transformer: nil)
        } else {
            self.init(type: .json, transformer: nil)
        }
    }

    /// The typing of an identity attribute: integers, or decimal strings that read back
    /// unchanged through `Int64` (`"1699"`), are integer64 (with `integer-from-string` when
    /// any value is a string, as Groot's `"id": "1699"`); integers beyond 64 bits (38 digits
    /// at most) are decimal, exact; other values are strings.
    init(identityClasses classes: [ValueClass]) {
        let set = Set(classes)
        if set == [.integer] {
            self.init(type: .integer64, transformer: nil)
        } else if set.contains(.bigInteger), set.isSubset(of: [.integer, .bigInteger]) {
            self.init(type: .decimal, transformer: nil)
        } else if set.isSubset(of: [.integer, .integerString]) {
            self.init(type: .integer64, transformer: "integer-from-string")
        } else {
            self.init(type: .string, transformer: nil)
        }
    }

    init(type: AttributeType, transformer: String?) {
        self.type = type
        self.transformer = transformer
    }
}
