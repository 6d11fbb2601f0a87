import Foundation

/// "Did you mean …?" for a name typed wrong: the closest candidate by edit distance.
enum Suggestion {
    /// The first of `candidates` that `name` is a prefix of (or that is a prefix of `name`),
    /// or that is at most 2 edits (insert, delete, substitute) away; nil when none is.
    static func closest(to name: String, among candidates: [String]) -> String? {
        candidates.first { candidate in
            candidate.hasPrefix(name) || name.hasPrefix(candidate) || distance(name, candidate) <= 2
        }
    }

    /// The Levenshtein distance between `a` and `b`, in characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension Suggestion {
    /// `text` as typed in a POSIX shell: as is when it holds only letters, digits and
    /// `-_.,:/@=+%`, else in single quotes (a `'` written `'\''`).
    static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.,:/@=+%".unicodeScalars.contains(scalar))
            }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
