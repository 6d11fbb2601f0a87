/// The writer's engine: appends the JSON text of values to a byte buffer, without
/// recursion (an explicit stack of the containers being written).
struct JSONEmitter {
    var output: [UInt8] = []
    let pretty: Bool
    let sortedKeys: Bool
    let escapesForwardSlashes: Bool

    init(options: JSONWriter.Options) {
        pretty = options.format == .pretty
        sortedKeys = options.sortedKeys
        escapesForwardSlashes = options.escapesForwardSlashes
        output.reserveCapacity(4096)
    }

    /// A container being written: its values, its keys (nil for an array), the order of its
    /// members (sorted keys; nil: as stored) and the position reached in that order.
    private struct Frame {
        let values: [JSONValue]
        let keys: [String]?
        let order: [Int]?
        var position: Int

        /// The member or element at `position` in the writing order.
        var index: Int { order?[position] ?? position }
    }

    /// Appends `value`, written as if nested `depth` levels deep (for pretty indentation);
    /// `pathPrefix` names where `value` sits, for errors.
    mutating func write(_ value: JSONValue, depth: Int, pathPrefix: JSONPath) throws(JSONWriteError) {
        var frames: [Frame] = []
        var current = value
        outer: while true {
            switch current {
            case .null:
                appendASCII("null")
            case .bool(let b):
                appendASCII(b ? "true" : "false")
            case .number(let n):
                try appendNumber(n, frames: frames, pathPrefix: pathPrefix)
            case .string(let s):
                appendString(s)
            case .array(let elements):
                if elements.isEmpty {
                    appendASCII("[]")
                } else {
                    output.append(UInt8(ascii: "["))
                    frames.append(Frame(values: elements, keys: nil, order: nil, position: 0))
                    newline(depth + frames.count)
                    current = elements[0]
                    continue outer
                }
            case .object(let object):
                if object.isEmpty {
                    appendASCII("{}")
                } else {
                    let keys = object.keys
                    let order = sortedKeys ? keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) } : nil
                    let first = order?[0] ?? 0
                    output.append(UInt8(ascii: "{"))
                    frames.append(Frame(values: object.values, keys: keys, order: order, position: 0))
                    newline(depth + frames.count)
                    appendKey(keys[first])
                    current = object.values[first]
                    continue outer
                }
            }
            // The value is written: move to the next sibling, closing finished containers.
            while !frames.isEmpty {
                let top = frames.count - 1
                if frames[top].position + 1 < frames[top].values.count {
                    output.append(UInt8(ascii: ","))
                    newline(depth + frames.count)
                    frames[top].position += 1
                    let index = frames[top].index
                    if let keys = frames[top].keys { appendKey(keys[index]) }
                    current = frames[top].values[index]
                    continue outer
                }
                let isObject = frames[top].keys != nil
                frames.removeLast()
                newline(depth + frames.count)
                output.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            }
            return
        }
    }

    // MARK: - Pieces

    @inline(__always)
    mutating func newline(_ depth: Int) {
        guard pretty else { return }
        output.append(0x0A)
        for _ in 0..<depth {
            output.append(0x20)
            output.append(0x20)
        }
    }

    @inline(__always)
    mutating func appendKey(_ key: String) {
        appendString(key)
        output.append(UInt8(ascii: ":"))
        if pretty { output.append(0x20) }
    }

    mutating func appendASCII(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendNumber(_ number: JSONNumber, frames: [Frame], pathPrefix: JSONPath) throws(JSONWriteError) {
        switch number.storage {
        case .int(let i):
            appendInteger(i)
        case .text(let t):
            var t = t
            t.withUTF8 { output.append(contentsOf: $0) }
        case .double(let d):
            guard d.isFinite else {
                var path = pathPrefix
                for frame in frames {
                    if let keys = frame.keys {
                        path = path.appending(key: keys[frame.index])
                    } else {
                        path = path.appending(index: frame.position)
                    }
                }
                throw JSONWriteError(
                    code: .nonFiniteNumber, path: path,
                    message: "cannot write the non-finite number \(JSONNumber.shortestText(d)) as JSON")
            }
            var t = JSONNumber.shortestText(d)
            t.withUTF8 { output.append(contentsOf: $0) }
        }
    }

    mutating func appendInteger(_ value: Int64) {
        if value >= 0 && value < 10 {
            output.append(0x30 &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = 20
            repeat {
                i -= 1
                digits[i] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { output.append(UInt8(ascii: "-")) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// Appends `"string"` with RFC 8259 escapes; unescaped runs are copied in bulk.
    mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            output.append(UInt8(ascii: "\""))
            guard let p = utf8.baseAddress else {
                output.append(UInt8(ascii: "\""))
                return
            }
            let count = utf8.count
            var runStart = 0
            var i = 0
            let slash: UInt8 = escapesForwardSlashes ? UInt8(ascii: "/") : UInt8(ascii: "\"")
            while i < count {
                let b = p[i]
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") && b != slash {
                    i &+= 1
                    continue
                }
                if runStart < i { output.append(contentsOf: UnsafeBufferPointer(start: p + runStart, count: i - runStart)) }
                output.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    output.append(UInt8(ascii: "u"))
                    output.append(UInt8(ascii: "0"))
                    output.append(UInt8(ascii: "0"))
                    output.append(hex.utf8Start[Int(b >> 4)])
                    output.append(hex.utf8Start[Int(b & 0xF)])
                }
                i &+= 1
                runStart = i
            }
            if runStart < count { output.append(contentsOf: UnsafeBufferPointer(start: p + runStart, count: count - runStart)) }
            output.append(UInt8(ascii: "\""))
        }
    }
}
