import Foundation

/// The key conversions of Foundation's `convertFromSnakeCase` and `convertToSnakeCase`,
/// rule for rule (the documented behaviour of `JSONDecoder` and `JSONEncoder`).
enum SnakeCaseKeys {
    /// `one_two_three` → `oneTwoThree`; leading and trailing underscores are kept
    /// (`_one_two_` → `_oneTwo_`); a key without an inner underscore is unchanged
    /// (`URLValue`); otherwise the first word is lowercased and every later word
    /// capitalized (`user_ID` → `userId`), empty words (`a__b`) dropped.
    static func fromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        guard let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" {
            key.formIndex(before: &lastNonUnderscore)
        }
        let middle = key[firstNonUnderscore...lastNonUnderscore]
        let words = middle.split(separator: "_")
        let joined: String
        if words.count == 1 {
            joined = String(middle)
        } else {
            var text = words[0].lowercased()
            for word in words.dropFirst() { text += word.capitalized }
            joined = text
        }
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)...]
        if leading.isEmpty && trailing.isEmpty { return joined }
        return String(leading) + joined + String(trailing)
    }

    /// `oneTwoThree` → `one_two_three`; a run of capitals is one word (`myURLValue` →
    /// `my_url_value`); leading and trailing underscores are kept.
    static func toSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upperCaseRange = key.rangeOfCharacter(from: CharacterSet.uppercaseLetters, options: [], range: searchRange) {
            let untilUpperCase = wordStart..<upperCaseRange.lowerBound
            words.append(untilUpperCase)
            searchRange = upperCaseRange.lowerBound..<searchRange.upperBound
            guard let lowerCaseRange = key.rangeOfCharacter(from: CharacterSet.lowercaseLetters, options: [], range: searchRange) else {
                wordStart = searchRange.lowerBound
                break
            }
            let nextCharacterAfterCapital = key.index(after: upperCaseRange.lowerBound)
            if lowerCaseRange.lowerBound == nextCharacterAfterCapital {
                wordStart = upperCaseRange.lowerBound
            } else {
                let beforeLowerIndex = key.index(before: lowerCaseRange.lowerBound)
                words.append(upperCaseRange.lowerBound..<beforeLowerIndex)
                wordStart = beforeLowerIndex
            }
            searchRange = lowerCaseRange.upperBound..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }
}
