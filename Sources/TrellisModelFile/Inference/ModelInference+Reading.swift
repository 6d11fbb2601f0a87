import Foundation
import Trellis

extension ModelInference {
    /// Adds the collection of the JSON file at `url` (the whole document, or the value at
    /// `keyPath`), streaming it with ``JSONArrayStream``: the elements of an array one at a
    /// time (a 1 GB array is read in bounded memory), an object as
    /// ``add(collection:at:source:)`` reads it.
    ///
    ///     let inference = ModelInference(rootEntity: "Status")
    ///     try inference.add(contentsOf: URL(fileURLWithPath: "twitter.json"), at: "statuses")
    ///
    /// - Parameters:
    ///   - source: the input's name in messages (default: the file's relative path).
    ///   - sample: read at most this many elements of an array (`--sample`); nil reads all.
    /// - Returns: the number of objects added.
    /// - Throws: `JSONParseError` for malformed JSON (line, column) or a key path that leads
    ///   nowhere (`.keyPathNotFound`); ``ModelInferenceError`` `.notAnObject` for an element
    ///   that is not an object or a collection that is a scalar, `.noObjects` for an empty one.
    @discardableResult
    public func add(contentsOf url: URL, at keyPath: JSONKeyPath? = nil, source: String? = nil, sample: Int? = nil) throws -> Int {
        let name = source ?? url.relativePath
        let stream = try JSONArrayStream(contentsOf: url, at: keyPath)
        var count = 0
        while sample.map({ count < $0 }) ?? true, let element = try stream.nextElement() {
            if element.isWholeValue {
                count += try add(collection: element.value, at: stream.collectionPath, source: name)
            } else {
                let path =
                    element.key.map { stream.collectionPath.appending(key: $0) }
                    ?? stream.collectionPath.appending(index: element.index)
                try add(element.value, at: path, source: name)
                count += 1
            }
        }
        if count == 0 { throw noObjects(at: stream.collectionPath, source: name, found: "an empty array") }
        return count
    }
}
