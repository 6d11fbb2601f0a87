/// `word` after its indefinite article, for messages naming entities, types and JSON kinds:
/// `an Item`, `an integer64`, `an object`, `a User`, `a UUID`, `a string`.
///
/// The article follows the sound the word usually starts with: "an" before a, e, i and o,
/// and before u unless it is read "you" (`use…`, `uni…`, `uti…`, `usu…`, `uri`, `url`, `uuid`).
package func withIndefiniteArticle(_ word: String) -> String {
    let lower = word.lowercased()
    guard let first = lower.first else { return "a" }
    let an: Bool
    switch first {
    case "a", "e", "i", "o":
        an = true
    case "u":
        an = !["use", "usi", "usu", "uni", "uti", "uri", "url", "uu"].contains { lower.hasPrefix($0) }
    default:
        an = false
    }
    return (an ? "an " : "a ") + word
}
