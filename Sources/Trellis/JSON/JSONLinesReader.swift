import Foundation

/// Reads JSON Lines / NDJSON (<https://jsonlines.org>, <https://github.com/ndjson/ndjson-spec>):
/// one JSON value per line, in bounded memory.
///
///     for value in try JSONLinesReader.parse(data) { … }          // all at once
///
///     let reader = try JSONLinesReader(contentsOf: url)          // streaming
///     while let record = try reader.next() { print(reader.line, record) }
///
/// Rules:
/// - Lines end with LF (U+000A). A CR before the LF is allowed (`\r\n` files): it is
///   JSON whitespace. The last line may lack its LF.
/// - A line that is empty or holds only whitespace (space, tab, CR) is skipped.
/// - Every other line must hold exactly one JSON value (any kind, not only objects);
///   a value cannot span lines, since an unescaped LF ends it.
/// - A UTF-8 byte order mark at the start of the input follows ``JSONReader/Options/allowsByteOrderMark``.
///
/// Errors are ``JSONParseError``s whose `line` is the line in the whole input,
/// `column` the column in that line, and ``JSONParseError/recordLine`` that line too.
///
/// Memory: as ``JSONArrayStream``, a buffer of `chunkSize` bytes that doubles while one
/// line does not fit, plus the record handed out; ``parse(_:options:)-([UInt8],_)`` keeps
/// every record.
public final class JSONLinesReader {
    private let buffer: JSONStreamBuffer
    private var parser: JSONParser
    private let options: JSONReader.Options
    private var failure: JSONParseError?

    /// The line of the last record handed out (1-based; 0 before the first).
    public private(set) var line = 0
    /// Number of records handed out so far.
    public private(set) var recordCount = 0
    /// The size of the input in bytes when known, for progress.
    public var totalBytes: Int? { buffer.source.totalBytes }
    /// Bytes of the input consumed so far.
    public var bytesConsumed: Int { buffer.bytesConsumed }

    /// Whether values are read as Foundation's `JSONDecoder` reads them (a repeated key
    /// keeps its first value, `-0` keeps its text), for ``TrellisJSONDecoder``.
    var codableSemantics: Bool {
        get { parser.codableSemantics }
        set { parser.codableSemantics = newValue }
    }
    /// Where the last record's line is in the buffer: its first byte and its length.
    private var lastRecord: (start: Int, length: Int, origin: JSONTextPosition)?
    /// The text of the line of the record last handed out and the position of its first
    /// byte in the whole input; valid until the next call.
    var lastRecordText: JSONElementText? {
        guard let lastRecord else { return nil }
        return JSONElementText(
            bytes: UnsafeRawBufferPointer(start: buffer.storage + lastRecord.start, count: lastRecord.length),
            bufferOrigin: lastRecord.origin, before: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    // MARK: - All at once

    /// Every record of `bytes`, in order. See the type's rules.
    /// - Throws: ``JSONParseError`` for the first bad line, with its line number.
    public static func parse(_ bytes: [UInt8], options: JSONReader.Options = JSONReader.Options()) throws(JSONParseError) -> [JSONValue] {
        let reader = JSONLinesReader(bytes: bytes, options: options, chunkSize: max(1, bytes.count))
        var values: [JSONValue] = []
        while let value = try reader.next() { values.append(value) }
        return values
    }

    /// Every record of `data`, in order.
    public static func parse(_ data: Data, options: JSONReader.Options = JSONReader.Options()) throws(JSONParseError) -> [JSONValue] {
        try parse([UInt8](data), options: options)
    }

    /// Every record of `text`, in order.
    public static func parse(_ text: String, options: JSONReader.Options = JSONReader.Options()) throws(JSONParseError) -> [JSONValue] {
        try parse(Array(text.utf8), options: options)
    }

    // MARK: - Streaming

    /// A reader over `bytes` in memory, read `chunkSize` bytes at a time.
    public init(bytes: [UInt8], options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20) {
        let chunk = max(1, chunkSize)
        buffer = JSONStreamBuffer(source: JSONByteSource(bytes: bytes, chunkSize: chunk), chunkSize: chunk)
        parser = JSONParser(options: options)
        self.options = options
    }

    /// A reader over the file at `url` (closed when the reader is released).
    /// - Throws: ``JSONParseError`` `.readFailed` when the file cannot be opened.
    public convenience init(contentsOf url: URL, options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20) throws(JSONParseError) {
        self.init(source: try JSONByteSource(path: url.path), options: options, chunkSize: chunkSize)
    }

    /// A reader over `fileHandle` from its current offset (pipes and standard input
    /// work; the handle is neither seeked nor closed).
    public convenience init(fileHandle: FileHandle, options: JSONReader.Options = JSONReader.Options(), chunkSize: Int = 1 << 20) {
        self.init(source: JSONByteSource(fileDescriptor: fileHandle.fileDescriptor, closes: false), options: options, chunkSize: chunkSize)
    }

    init(source: JSONByteSource, options: JSONReader.Options, chunkSize: Int) {
        buffer = JSONStreamBuffer(source: source, chunkSize: max(1, chunkSize))
        parser = JSONParser(options: options)
        self.options = options
    }

    /// The next record, or nil at the end of the input.
    /// - Throws: ``JSONParseError`` located at the bad line (and again on later calls).
    public func next() throws(JSONParseError) -> JSONValue? {
        if let failure { throw failure }
        do {
            return try readRecord()
        } catch {
            failure = error
            throw error
        }
    }

    private func readRecord() throws(JSONParseError) -> JSONValue? {
        lastRecord = nil
        while true {
            let window = buffer.window
            var lineLength = -1
            if let base = window.baseAddress, window.count > 0,
                let lf = memchr(base, 0x0A, window.count)
            {
                lineLength = base.distance(to: UnsafeRawPointer(lf))
            }
            if lineLength < 0 {
                if !buffer.isAtEndOfInput {
                    try buffer.refill()
                    continue
                }
                if window.isEmpty { return nil }
                lineLength = window.count
            }
            let consumed = min(lineLength + 1, window.count)
            let lineBytes = UnsafeRawBufferPointer(rebasing: window[0..<lineLength])
            let lineOffset = buffer.bytesConsumed
            line += 1
            parser.reset(lineBytes, isFinal: true)
            let value: JSONValue?
            do throws(JSONParser.Failure) {
                if lineOffset == 0 { try JSONReader.skipByteOrderMark(&parser, options: options) }
                parser.skipWhitespace()
                if parser.pos == parser.end {
                    value = nil
                } else {
                    let parsed = try parser.parseValue(depthAvailable: options.maximumDepth)
                    parser.skipWhitespace()
                    if parser.pos < parser.end {
                        throw JSONParser.Failure(
                            code: .trailingData, offset: parser.pos,
                            message: "expected end of line after the JSON value, found \(JSONParser.describe(parser.base[parser.pos]))")
                    }
                    value = parsed
                }
            } catch {
                var located = JSONTextPosition.error(
                    code: error.code, message: error.message, offset: error.offset, in: lineBytes,
                    origin: JSONTextPosition(byteOffset: lineOffset, line: line, column: 1))
                if error.code == .unexpectedEndOfInput {
                    located.message = located.message.replacingOccurrences(of: "found end of input", with: "found end of line")
                }
                located.recordLine = line
                throw located
            }
            lastRecord = (buffer.start, lineLength, JSONTextPosition(byteOffset: lineOffset, line: line, column: 1))
            buffer.start += consumed
            if let value {
                recordCount += 1
                return value
            }
        }
    }
}
