import Foundation

/// How inferred names are spelled (docs/ModelInference.md, "Names"): property names in
/// Swift style (`real_name` → `realName`, `user_id` → `userID`), entity names singular
/// UpperCamelCase (`user_mentions` → `UserMention`), words split at non-alphanumerics and
/// camelCase boundaries, acronyms cased as a unit.
enum InferenceNaming {
    /// Words written in capitals inside a name (`userID`, `profileImageURLHTTPS`); their
    /// plurals too (`IDs`, `URLs`).
    static let acronyms: Set<String> = [
        "api", "css", "dns", "ftp", "gps", "html", "http", "https", "id", "ip", "json", "jwt", "pdf", "rgb", "sha",
        "sql", "ssh", "ssl", "tcp", "tls", "udp", "uri", "url", "utc", "uuid", "xml",
    ]

    /// Swift keywords (The Swift Programming Language, "Lexical Structure", keywords used in
    /// declarations, statements, expressions and types), and the properties of
    /// `NSObject` / `NSManagedObject` a Core Data attribute must not shadow. A property
    /// name among them is prefixed with its entity's name (`description` → `userDescription`).
    static let reservedPropertyNames: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while",
        "any", "as", "await", "false", "is", "nil", "self", "super", "throws", "true", "try",
        // NSObject and NSManagedObject members.
        "changedValues", "classForCoder", "className", "debugDescription", "description", "entity", "faultingState",
        "hasChanges", "hash", "hashValue", "isDeleted", "isFault", "isInserted", "isUpdated", "managedObjectContext",
        "objectID", "observationInfo", "superclass",
    ]

    /// Entity names that cannot name a Swift class (`class Type` does not compile); such a
    /// name is prefixed with the parent entity's name.
    static let reservedEntityNames: Set<String> = ["Any", "Protocol", "Self", "Type"]

    // MARK: - Words

    /// The words of a JSON key: split at every character that is not a letter or digit
    /// and at camelCase boundaries (`seatCategoryId` → seat, category, id; `URLString` →
    /// url, string), lowercased; Latin letters lose their diacritics (`café` → cafe);
    /// a leading `+` or `-` before a digit is spelled `plus` / `minus` (`+1` → plus, 1).
    static func words(of key: String) -> [String] {
        var text = key.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var leading: [String] = []
        if let first = text.first, first == "+" || first == "-", text.dropFirst().first?.isNumber == true {
            leading.append(first == "+" ? "plus" : "minus")
            text.removeFirst()
        }
        var words: [String] = []
        var current: [Character] = []
        func flush() {
            if !current.isEmpty { words.append(String(current).lowercased()) }
            current.removeAll()
        }
        let characters = Array(text)
        for (i, c) in characters.enumerated() {
            guard c.isLetter || c.isNumber else {
                flush()
                continue
            }
            if c.isUppercase, let previous = current.last {
                let nextIsLower = i + 1 < characters.count && characters[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { flush() }
            }
            current.append(c)
        }
        flush()
        return leading + words
    }

    /// A word with its first letter in capitals, or the whole word for an acronym
    /// (`id` → `ID`, `ids` → `IDs`, `urls` → `URLs`, `name` → `Name`).
    static func capitalized(_ word: String) -> String {
        if acronyms.contains(word) { return word.uppercased() }
        if word.hasSuffix("s"), acronyms.contains(String(word.dropLast())) { return word.dropLast().uppercased() + "s" }
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// lowerCamelCase: the first word in lowercase, the others capitalized (`user`, `id` → `userID`).
    static func lowerCamel(_ words: [String]) -> String {
        guard let first = words.first else { return "" }
        return first + words.dropFirst().map(capitalized).joined()
    }

    /// UpperCamelCase (`user`, `mention` → `UserMention`; `url` → `URL`).
    static func upperCamel(_ words: [String]) -> String {
        words.map(capitalized).joined()
    }

    /// Whether `name` starts with an ASCII letter (Core Data's rule for entity and property names).
    static func startsWithASCIILetter(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        return (first.value >= 0x41 && first.value <= 0x5A) || (first.value >= 0x61 && first.value <= 0x7A)
    }

    // MARK: - Singular and plural

    /// Plurals that the suffix rules below get wrong, and their singulars.
    static let irregularPlurals: [String: String] = [
        "people": "person", "men": "man", "women": "woman", "children": "child", "mice": "mouse", "geese": "goose",
        "feet": "foot", "teeth": "tooth", "indices": "index", "matrices": "matrix", "vertices": "vertex",
        "analyses": "analysis", "crises": "crisis", "theses": "thesis", "axes": "axis", "criteria": "criterion",
        "phenomena": "phenomenon", "quizzes": "quiz", "statuses": "status", "aliases": "alias", "buses": "bus",
        "bonuses": "bonus", "viruses": "virus", "campuses": "campus", "censuses": "census", "geniuses": "genius",
        "choruses": "chorus", "syllabuses": "syllabus", "heroes": "hero", "potatoes": "potato", "tomatoes": "tomato",
        "echoes": "echo", "vetoes": "veto", "torpedoes": "torpedo", "leaves": "leaf", "wolves": "wolf",
        "knives": "knife", "lives": "life", "wives": "wife", "halves": "half", "shelves": "shelf", "thieves": "thief",
        "calves": "calf", "loaves": "loaf", "movies": "movie", "cookies": "cookie", "zombies": "zombie",
        "selfies": "selfie", "rookies": "rookie", "pies": "pie", "ties": "tie", "lies": "lie",
    ]

    /// Words whose plural is the word itself, or that end in `s` in the singular.
    static let invariantWords: Set<String> = [
        "data", "media", "metadata", "news", "series", "species", "information", "equipment", "sheep", "fish", "deer",
        "status", "bus", "gas", "lens", "canvas", "alias", "atlas", "bias", "corpus", "campus", "virus", "bonus",
        "analysis", "basis", "axis", "crisis", "thesis", "chaos",
    ]

    /// The singular of an English plural noun (`statuses` → `status`, `categories` →
    /// `category`, `boxes` → `box`, `powers` → `power`); other words unchanged.
    static func singular(_ word: String) -> String {
        if let irregular = irregularPlurals[word] { return irregular }
        if invariantWords.contains(word) || word.count < 3 { return word }
        if acronyms.contains(word) { return word }
        if word.hasSuffix("s"), acronyms.contains(String(word.dropLast())) { return String(word.dropLast()) }
        if word.hasSuffix("ies") { return word.dropLast(3) + "y" }
        for suffix in ["sses", "shes", "ches", "xes", "zzes"] where word.hasSuffix(suffix) { return String(word.dropLast(2)) }
        if word.hasSuffix("ss") || word.hasSuffix("us") || word.hasSuffix("is") { return word }
        if word.hasSuffix("s") { return String(word.dropLast()) }
        return word
    }

    /// Singulars whose plural the suffix rules below get wrong.
    static let irregularSingulars: [String: String] = [
        "person": "people", "man": "men", "woman": "women", "child": "children", "mouse": "mice", "goose": "geese",
        "foot": "feet", "tooth": "teeth", "leaf": "leaves", "wolf": "wolves", "knife": "knives", "life": "lives",
        "wife": "wives", "half": "halves", "shelf": "shelves", "thief": "thieves", "calf": "calves", "loaf": "loaves",
        "hero": "heroes", "potato": "potatoes", "tomato": "tomatoes", "echo": "echoes", "veto": "vetoes",
        "torpedo": "torpedoes", "analysis": "analyses", "crisis": "crises", "thesis": "theses", "axis": "axes",
        "basis": "bases", "criterion": "criteria", "phenomenon": "phenomena", "quiz": "quizzes",
    ]

    /// Nouns whose plural is the noun itself.
    static let uncountableWords: Set<String> = [
        "data", "media", "metadata", "news", "series", "species", "information", "equipment", "sheep", "fish", "deer",
    ]

    /// The plural of an English noun (`status` → `statuses`, `category` → `categories`,
    /// `person` → `people`, `user` → `users`).
    static func plural(_ word: String) -> String {
        if let irregular = irregularSingulars[word] { return irregular }
        if uncountableWords.contains(word) { return word }
        if word.hasSuffix("s") || word.hasSuffix("x") || word.hasSuffix("z") || word.hasSuffix("ch") || word.hasSuffix("sh") {
            return word + "es"
        }
        if word.hasSuffix("y"), let before = word.dropLast().last, !"aeiou".contains(before) {
            return word.dropLast() + "ies"
        }
        return word + "s"
    }
}
