import Trellis

extension ModelFileDecoder {
    /// What `json` is when it reads as a JSON payload rather than a model file (an API
    /// response given to `--model`), for ``ModelFileError/Code/notAModel``; nil when it may
    /// be a model file with mistakes in it (those get the usual errors at their paths).
    ///
    /// A payload is a non-empty array (`[]` stays "expected a model file (an object)": there
    /// is nothing to infer a model from), or an object with none of the keys that make a model file
    /// (`format`, `formatVersion`, `entities`) and no key within the edit distance of a typo
    /// of a top-level key (`fromat`, `entites` stay the unknown-key errors that name them).
    static func payloadDescription(_ json: JSONValue) -> String? {
        switch json {
        case .array(let elements) where !elements.isEmpty:
            return "an array of \(elements.count) element\(elements.count == 1 ? "" : "s")"
        case .object(let object):
            let keys = Array(object.keys)
            if keys.isEmpty || keys.contains(where: { ["format", "formatVersion", "entities"].contains($0) }) { return nil }
            if keys.contains(where: { !topKeys.contains($0) && FieldReader.closest(to: $0, in: topKeys) != nil }) { return nil }
            let shown = keys.prefix(5).map { "'\($0)'" }.joined(separator: ", ")
            return "an object with the keys \(shown)\(keys.count > 5 ? ", …" : "") and no \"format\""
        default:
            return nil
        }
    }
}
