import Foundation
import Trellis

/// The elements of every input of one `trellis import`, in order, as one ``ImportSource``
/// (so all files are imported in one transaction), updating the progress bar as it reads.
///
/// With several inputs, each element's path starts with a hidden component naming its
/// input, so an ``ImportError`` thrown while a later file is being read still names the
/// file its value came from (``locate(_:)``).
struct ChainedImportSource: ImportSource {
    private(set) var readers: [InputElementReader]
    private let progress: ProgressBar
    /// Makes the readers again (from the first byte of every file), for ``rewind()``; nil
    /// when an input cannot be read twice (standard input).
    private let makeReaders: (() -> [InputElementReader])?
    private let tagsInputs: Bool
    private var current = 0
    private var elementCount = 0
    private var bytesOfFinishedInputs = 0

    /// The prefix of hidden input components (not a character a JSON key path can show).
    private static let marker = "\u{0}input:"

    init(readers: [InputElementReader], progress: ProgressBar, makeReaders: (() -> [InputElementReader])? = nil) {
        self.readers = readers
        self.progress = progress
        self.makeReaders = makeReaders
        self.tagsInputs = readers.count > 1
    }

    /// Starts over at the first element of the first input (a store running the import's
    /// transaction again after a conflict); `false` when an input is standard input.
    mutating func rewind() throws -> Bool {
        guard let makeReaders else { return false }
        readers = makeReaders()
        current = 0
        elementCount = 0
        bytesOfFinishedInputs = 0
        // A new pass: until it has read everything, a signal ends the import at once again
        // (the server rolls back the transaction of a connection that closes).
        Interruption.show(progress)
        return true
    }

    mutating func nextElement() throws -> ImportElement? {
        while current < readers.count {
            let reader = readers[current]
            if let element = try reader.next() {
                elementCount += 1
                if elementCount % 256 == 0 {
                    progress.update(bytes: bytesOfFinishedInputs + reader.bytesConsumed, objects: elementCount)
                }
                var path = element.path
                if tagsInputs {
                    path = JSONPath(components: [.key(ChainedImportSource.marker + String(current))] + path.components)
                }
                return ImportElement(value: element.value, path: path, key: element.key)
            }
            bytesOfFinishedInputs += reader.totalBytes ?? reader.bytesConsumed
            current += 1
        }
        progress.update(bytes: bytesOfFinishedInputs, objects: elementCount)
        // Everything is read: what is left (the last batch, the commit) is not cut short.
        Interruption.finishing()
        return nil
    }

    /// `FILE: PATH` (or `FILE:LINE: PATH` for NDJSON, LINE the record's) for a path of an
    /// element of this source.
    func locate(_ path: JSONPath) -> String {
        guard let (reader, shown) = input(of: path) else { return path.description }
        if reader.isLines, case .index(let record)? = shown.components.first, let line = reader.line(ofRecord: record) {
            return "\(reader.input.name):\(line): \(shown)"
        }
        return "\(reader.input.name): \(shown)"
    }

    /// The reader of the input a path of this source is in, and the path inside that input.
    func input(of path: JSONPath) -> (reader: InputElementReader, path: JSONPath)? {
        var components = path.components[...]
        var index = 0
        if tagsInputs, case .key(let key)? = components.first, key.hasPrefix(ChainedImportSource.marker),
            let i = Int(key.dropFirst(ChainedImportSource.marker.count)), readers.indices.contains(i)
        {
            index = i
            components = components.dropFirst()
        }
        guard readers.indices.contains(index) else { return nil }
        return (readers[index], JSONPath(components: Array(components)))
    }
}
