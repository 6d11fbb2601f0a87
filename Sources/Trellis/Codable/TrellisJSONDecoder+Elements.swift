import Foundation

extension TrellisJSONDecoder {
    /// How ``decodeElements(of:from:format:)-(_,URL,_)`` reads its input.
    public enum ElementsFormat: Sendable, Hashable {
        /// A top-level array when the first byte that is not whitespace is `[`, otherwise
        /// JSON Lines (NDJSON). The default. (NDJSON whose first record is an array needs
        /// ``lines``.)
        case automatic
        /// One JSON array; each element is decoded.
        case array
        /// JSON Lines / NDJSON (<https://jsonlines.org>): one JSON value per line, blank
        /// lines skipped; each line is decoded.
        case lines
    }

    /// The elements of the large JSON array (or JSON Lines file) at `url`, decoded one at a
    /// time in memory bounded by one element: the file is read in chunks of 1 MiB, only
    /// the element being decoded is held (a 1 GB array is decoded in a few MB besides the
    /// values you keep).
    ///
    ///     for try await hero in try decoder.decodeElements(of: Hero.self, from: url) { … }
    ///     let heroes = try decoder.decodeElements(of: Hero.self, from: url)
    ///     while let hero = try heroes.next() { … }
    ///
    /// The whole input is checked (the array's end and what follows it too). Each error is
    /// thrown by the call that reaches it, after every element before it was handed out:
    /// malformed JSON is `DecodingError.dataCorrupted` (its underlying ``JSONParseError``
    /// gives line, column and byte offset in the whole file); a value that does not decode
    /// is the `DecodingError` `decode([T].self, …)` would throw (its `codingPath` starts with
    /// the element's `Index i`), its description ending with the element's index and the
    /// failing value's line, column and JSON path: `(element 3, line 5, column 12, at $[3].id)`.
    /// After an error the sequence ends (every later call throws it again).
    ///
    /// - Parameters:
    ///   - type: the type of each element.
    ///   - url: a file holding a top-level JSON array or JSON Lines.
    ///   - format: how to read it; see ``ElementsFormat``.
    /// - Throws: `DecodingError.dataCorrupted` when the file cannot be opened.
    public func decodeElements<T: Decodable>(of type: T.Type, from url: URL, format: ElementsFormat = .automatic) throws -> DecodedElements<T> {
        let source: JSONByteSource
        do {
            source = try JSONByteSource(path: url.path)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        return try DecodedElements(source: source, format: format, options: currentOptions())
    }

    /// The elements read from `fileHandle` from its current offset (a file, a pipe,
    /// standard input; neither seeked nor closed). See ``decodeElements(of:from:format:)-(_,URL,_)``.
    public func decodeElements<T: Decodable>(of type: T.Type, from fileHandle: FileHandle, format: ElementsFormat = .automatic) throws -> DecodedElements<T> {
        try DecodedElements(
            source: JSONByteSource(fileDescriptor: fileHandle.fileDescriptor, closes: false), format: format, options: currentOptions())
    }

    /// The elements of the array or JSON Lines in `data`, decoded one at a time. See
    /// ``decodeElements(of:from:format:)-(_,URL,_)``.
    public func decodeElements<T: Decodable>(of type: T.Type, from data: Data, format: ElementsFormat = .automatic) throws -> DecodedElements<T> {
        try DecodedElements(source: JSONByteSource(bytes: [UInt8](data), chunkSize: 1 << 20), format: format, options: currentOptions())
    }
}

/// The decoded elements of a JSON array or JSON Lines input, read one at a time (see
/// ``TrellisJSONDecoder/decodeElements(of:from:format:)-(_,URL,_)``).
///
/// Iterate with `for try await` (an `AsyncSequence`), or synchronously with
/// ``next()``: a Swift `Sequence` cannot throw from its iterator, and a decoding error
/// must never end a loop as if the input were complete. Not thread-safe: use one
/// sequence from one task at a time.
public final class DecodedElements<Element: Decodable>: AsyncSequence {
    private enum Reader {
        case array(JSONArrayStream)
        case lines(JSONLinesReader)
    }

    private let reader: Reader
    private let options: TrellisJSONDecoder.Options
    private var failure: (any Error)?

    /// Number of elements handed out so far.
    public private(set) var count = 0
    /// The size of the input in bytes when known (a regular file or data), for progress.
    public var totalBytes: Int? {
        switch reader {
        case .array(let stream): return stream.totalBytes
        case .lines(let lines): return lines.totalBytes
        }
    }
    /// Bytes of the input read through the last element handed out.
    public var bytesConsumed: Int {
        switch reader {
        case .array(let stream): return stream.bytesConsumed
        case .lines(let lines): return lines.bytesConsumed
        }
    }

    init(source: JSONByteSource, format: TrellisJSONDecoder.ElementsFormat, options: TrellisJSONDecoder.Options) throws {
        self.options = options
        var isArray: Bool
        switch format {
        case .array: isArray = true
        case .lines: isArray = false
        case .automatic:
            do {
                isArray = try source.firstSignificantByte() == UInt8(ascii: "[")
            } catch {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: [], debugDescription: "The given data was not valid JSON. reading the input failed: \(error.reason)"))
            }
        }
        if isArray {
            let stream = JSONArrayStream(source: source, at: nil, objects: .single, options: JSONReader.Options(), chunkSize: 1 << 20)
            stream.codableSemantics = true
            reader = .array(stream)
        } else {
            let lines = JSONLinesReader(source: source, options: JSONReader.Options(), chunkSize: 1 << 20)
            lines.codableSemantics = true
            reader = .lines(lines)
        }
    }

    /// The next element decoded, or nil after the last one (and after the rest of the
    /// input has been checked).
    /// - Throws: `DecodingError` located as the type's notes say, or an error thrown by an
    ///   `init(from:)`; the same error again on every later call.
    public func next() throws -> Element? {
        if let failure { throw failure }
        do {
            let element = try decodeNext()
            if element != nil { count += 1 }
            return element
        } catch {
            failure = error
            throw error
        }
    }

    private func decodeNext() throws -> Element? {
        let value: JSONValue
        let text: JSONElementText?
        do {
            switch reader {
            case .array(let stream):
                guard let element = try stream.nextElement() else { return nil }
                if element.isWholeValue {
                    // A top-level value that is not an array.
                    throw DecodingError.typeMismatch(
                        [Any].self,
                        DecodingError.Context(
                            codingPath: [], debugDescription: "Expected to decode Array<Any> but found \(element.value.codableTypeDescription) instead."))
                }
                value = element.value
                text = stream.lastElementText
            case .lines(let lines):
                guard let record = try lines.next() else { return nil }
                value = record
                text = lines.lastRecordText
            }
        } catch let error as JSONParseError {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON. \(error.description)", underlyingError: error))
        }
        let index = count
        let state = CodableDecodingState(options: options)
        do {
            return try state.unwrap(value, as: Element.self, path: CodablePath.root.appending(index: index), key: nil)
        } catch let error as DecodingError {
            guard let text else { throw error }
            let frame = CodableErrorLocator.Frame(origin: text.origin, path: JSONPath.root.appending(index: index), outsideKeys: 1, element: index)
            throw CodableErrorLocator.located(error, state: state, in: text.bytes, frame: frame)
        }
    }

    /// Iterates the elements in a `for try await` loop.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let elements: DecodedElements

        /// The next element; see ``DecodedElements/next()``.
        public mutating func next() async throws -> Element? { try elements.next() }
    }

    /// An iterator over the remaining elements.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(elements: self) }
}
