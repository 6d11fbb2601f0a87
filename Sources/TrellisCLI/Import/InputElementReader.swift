import Foundation
import Trellis

/// Reads the elements to import from one input, streaming, in bounded memory.
///
/// The collection is the whole document, or the value at `--at`:
/// - an array: each element (`$.statuses[3]`);
/// - an object of objects, keyed by id (`$.events["138586341"]`, with the key): when
///   `--key-attribute` or `--value-key` is given (and only then: the object's members are
///   never inspected, so JSON member order cannot change the reading);
/// - otherwise a single object (`--at statuses.0`, or a document that is one object);
/// - a scalar or `null` is an error naming its path (`$.search_metadata.count: expected an
///   array or object of Status objects, found a number`); NDJSON records without `--at`
///   are elements, so a scalar record is a bare identifier there.
///
/// With `--value-key KEY`, an element that is not an object becomes `{"KEY": element}`,
/// so an id → name table (`{"205705993": "Arrière-scène central"}`) imports as objects.
/// With `--format ndjson` every line is a document (paths are `$[record]…`, and
/// ``line(ofRecord:)`` gives the line of a record).
///
/// The file is opened by the first ``next()`` and closed once its last element was read, so
/// an import of thousands of files holds one of them open at a time (`ulimit -n`).
final class InputElementReader {
    /// One element to import.
    struct Element {
        var value: JSONValue
        /// Where the element is in its document (`$.statuses[3]`).
        var path: JSONPath
        /// The member key, for an object of objects.
        var key: String?
        /// `true` for the whole collection read as one value (an object at `--at`, or a
        /// document that is one object), `false` for an element or member of it.
        var isWholeValue = false
    }

    private enum Source {
        case stream(JSONArrayStream)
        case lines(JSONLinesReader)
    }

    let input: InputFile
    /// Whether the input is read as NDJSON records, one per line.
    let lines: Bool
    /// The open input: nil before the first ``next()`` and after the last element.
    private var source: Source?
    /// The size of the input in bytes, when known (a regular file).
    let totalBytes: Int?
    /// Bytes read from inputs already closed.
    private var bytesOfClosedSource = 0
    private let at: JSONKeyPath?
    private let alwaysMembers: Bool
    private let valueKey: String?
    private let entityName: String
    private var pending: [Element] = []
    private var pendingIndex = 0
    private var finished = false
    /// record index → line, for NDJSON inputs.
    private var recordLines: [Int] = []
    /// Where the collection is, when it was read as one object (the whole document, or the
    /// object at `--at`): the input had one element, the collection itself.
    private(set) var wholeCollectionPath: JSONPath?
    /// That object, kept for standard input only (a file is read again when a hint needs it).
    private var wholeCollectionFromStandardInput: JSONValue?

    /// A reader of `input`; the file is opened by the first ``next()``.
    /// - Parameters:
    ///   - alwaysMembers: read an object as an object of objects (`--key-attribute`).
    ///   - entityName: the entity imported, for error messages.
    init(
        input: InputFile, at: JSONKeyPath?, lines: Bool, alwaysMembers: Bool, valueKey: String?,
        entityName: String
    ) {
        self.input = input
        self.lines = lines
        self.at = at
        self.alwaysMembers = alwaysMembers || valueKey != nil
        self.valueKey = valueKey
        self.entityName = entityName
        var info = stat()
        if let url = input.url {
            totalBytes = stat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        } else {
            let descriptor = input.standardInput.fileDescriptor
            totalBytes =
                fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
                ? max(0, Int(info.st_size) - max(0, Int(lseek(descriptor, 0, SEEK_CUR)))) : nil
        }
    }

    /// Opens the input.
    /// - Throws: ``CommandError`` `.invalidInput` when the file cannot be opened.
    private func open() throws -> Source {
        let objects: JSONArrayStream.ObjectHandling = alwaysMembers ? .members : .single
        do {
            switch (input.url, lines) {
            case (let url?, false):
                return .stream(try JSONArrayStream(contentsOf: url, at: at, objects: objects))
            case (nil, false):
                return .stream(JSONArrayStream(fileHandle: input.standardInput, at: at, objects: objects))
            case (let url?, true):
                return .lines(try JSONLinesReader(contentsOf: url))
            case (nil, true):
                return .lines(JSONLinesReader(fileHandle: input.standardInput))
            }
        } catch {
            throw CommandError(.invalidInput, "\(input.name): \(error.message)")
        }
    }

    /// Bytes read so far.
    var bytesConsumed: Int {
        switch source {
        case .stream(let stream)?: return stream.bytesConsumed
        case .lines(let reader)?: return reader.bytesConsumed
        case nil: return bytesOfClosedSource
        }
    }

    /// `true` for NDJSON input (element paths start with the record index).
    var isLines: Bool { lines }

    /// The line of NDJSON record `index` (0-based), if known.
    func line(ofRecord index: Int) -> Int? {
        recordLines.indices.contains(index) ? recordLines[index] : nil
    }

    /// The next element, or nil after the last.
    /// - Throws: ``CommandError`` `.invalidInput`: `FILE:LINE:COLUMN: message` for malformed
    ///   JSON, `FILE: no value at 'KEYPATH'` when `--at` does not exist.
    func next() throws -> Element? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            pending.removeAll(keepingCapacity: true)
            pendingIndex = 0
            if finished { return nil }
            do {
                let source: Source
                if let open = self.source {
                    source = open
                } else {
                    source = try open()
                    self.source = source
                }
                switch source {
                case .stream(let stream):
                    if let element = try stream.nextElement() {
                        return try accept(element, in: stream.collectionPath)
                    }
                    close()
                case .lines(let reader):
                    if let record = try reader.next() {
                        recordLines.append(reader.line)
                        try expand(record: record, index: recordLines.count - 1)
                    } else {
                        close()
                    }
                }
            } catch let error as JSONParseError {
                if error.code == .keyPathNotFound, let at {
                    throw CommandError(.invalidInput, "\(input.name): no value at '\(at)' (--at): \(error.message)")
                }
                let hint = lines ? "" : InputFormat.ndjsonHint(for: error) ?? ""
                throw CommandError(.invalidInput, "\(input.name):\(error.line):\(error.column): \(error.message)\(hint)")
            }
        }
    }

    /// The collection read as one object (see ``wholeCollectionPath``), read again from its
    /// file; nil when it was not, or the file no longer parses.
    func wholeCollection() -> JSONValue? {
        guard wholeCollectionPath != nil else { return nil }
        guard let url = input.url else { return wholeCollectionFromStandardInput }
        guard let data = try? Data(contentsOf: url, options: .mappedIfSafe), let document = try? JSONReader.parse(data) else {
            return nil
        }
        return at.map { $0.lookup(in: document).value } ?? document
    }

    // MARK: - Internals

    /// Marks the input finished and closes it (releasing the stream closes the file).
    private func close() {
        bytesOfClosedSource = bytesConsumed
        finished = true
        source = nil
    }

    /// The element for one streamed value, from the collection at `basePath`.
    private func accept(_ element: JSONArrayStream.Element, in basePath: JSONPath) throws -> Element {
        if element.isWholeValue {
            try checkCollection(element.value, at: basePath, lineSuffix: "")
            wholeCollectionPath = basePath
            if input.url == nil { wholeCollectionFromStandardInput = element.value }
            return Element(value: element.value, path: basePath, key: nil, isWholeValue: true)
        }
        if let key = element.key {
            return Element(value: wrapped(element.value), path: basePath.appending(key: key), key: key)
        }
        return Element(value: wrapped(element.value), path: basePath.appending(index: element.index), key: nil)
    }

    /// Throws unless `value`, the collection at `--at` (or the whole document), is an array or an object.
    private func checkCollection(_ value: JSONValue, at path: JSONPath, lineSuffix: String) throws {
        let found: String
        switch value {
        case .array, .object: return
        case .null: found = "null"
        case .bool: found = "a boolean"
        case .number: found = "a number"
        case .string: found = "a string"
        }
        throw CommandError(.invalidInput, "\(input.name)\(lineSuffix): \(path): expected an array or object of \(entityName) objects, found \(found)")
    }

    /// The elements of one NDJSON record (the record itself, or the collection at `--at` in it).
    private func expand(record: JSONValue, index: Int) throws {
        let recordPath = JSONPath.root.appending(index: index)
        var target = record
        var targetPath = recordPath
        if let at {
            guard let value = at.lookup(in: record).value else {
                throw CommandError(.invalidInput, "\(input.name):\(recordLines[index]): no value at '\(at)' (--at)")
            }
            targetPath = recordPath.appending(at, readingFrom: record)
            target = value
        }
        switch target {
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                pending.append(Element(value: wrapped(element), path: targetPath.appending(index: i), key: nil))
            }
        case .object(let object):
            if alwaysMembers {
                for (key, value) in object {
                    pending.append(Element(value: wrapped(value), path: targetPath.appending(key: key), key: key))
                }
            } else {
                pending.append(Element(value: target, path: targetPath, key: nil, isWholeValue: at != nil))
            }
        default:
            if at != nil { try checkCollection(target, at: targetPath, lineSuffix: ":\(recordLines[index])") }
            pending.append(Element(value: wrapped(target), path: targetPath, key: nil))
        }
    }

    /// `{"valueKey": value}` for a non-object element when `--value-key` is given.
    private func wrapped(_ value: JSONValue) -> JSONValue {
        guard let valueKey, value.objectValue == nil else { return value }
        var object = JSONObject()
        object.append(key: valueKey, value: value)
        return .object(object)
    }
}
