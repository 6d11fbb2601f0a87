import Foundation

/// Writes a JSON array element by element into a sink (a file, a socket, a buffer), so
/// that exporting millions of objects never holds the whole text in memory.
///
///     let handle = try FileHandle(forWritingTo: url)
///     var writer = JSONArrayWriter(options: .pretty) { chunk in try handle.write(contentsOf: chunk) }
///     for object in objects { try writer.append(object) }
///     try writer.finish()   // writes the closing bracket and flushes
///
/// The output is byte for byte what ``JSONWriter`` writes for the whole array with the
/// same options. Text is handed to the sink in chunks of about ``flushThreshold`` bytes.
public struct JSONArrayWriter {
    /// Bytes buffered before the sink is called (default 64 KiB).
    public let flushThreshold: Int
    /// Number of elements appended so far.
    public private(set) var count = 0
    /// Bytes handed to the sink so far.
    public private(set) var bytesWritten = 0

    private var emitter: JSONEmitter
    private let sink: (Data) throws -> Void
    private var finished = false

    /// A writer that hands each chunk of text to `sink`.
    /// - Parameters:
    ///   - options: layout, as for ``JSONWriter``.
    ///   - flushThreshold: bytes buffered before `sink` is called.
    ///   - sink: receives the text in order; an error it throws is rethrown as
    ///     ``JSONWriteError`` `.writeFailed`.
    public init(options: JSONWriter.Options = JSONWriter.Options(), flushThreshold: Int = 1 << 16, sink: @escaping (Data) throws -> Void) {
        self.flushThreshold = max(1, flushThreshold)
        self.sink = sink
        emitter = JSONEmitter(options: options)
    }

    /// Appends one element.
    /// - Throws: ``JSONWriteError`` (`.nonFiniteNumber` with the path `$[index]…`, or
    ///   `.writeFailed`). After an error the output is incomplete.
    public mutating func append(_ element: JSONValue) throws(JSONWriteError) {
        precondition(!finished, "JSONArrayWriter.append after finish()")
        emitter.output.append(count == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
        emitter.newline(1)
        try emitter.write(element, depth: 1, pathPrefix: JSONPath.root.appending(index: count))
        count += 1
        if emitter.output.count >= flushThreshold { try flush() }
    }

    /// Closes the array (`[]` when nothing was appended) and flushes. Call once.
    public mutating func finish() throws(JSONWriteError) {
        guard !finished else { return }
        finished = true
        if count == 0 {
            emitter.appendASCII("[]")
        } else {
            emitter.newline(0)
            emitter.output.append(UInt8(ascii: "]"))
        }
        try flush()
    }

    private mutating func flush() throws(JSONWriteError) {
        guard !emitter.output.isEmpty else { return }
        let chunk = Data(emitter.output)
        emitter.output.removeAll(keepingCapacity: true)
        do {
            try sink(chunk)
        } catch {
            throw JSONWriteError(
                code: .writeFailed, path: JSONPath.root.appending(index: count), message: "writing the output failed: \(error)", underlying: error)
        }
        bytesWritten += chunk.count
    }
}
