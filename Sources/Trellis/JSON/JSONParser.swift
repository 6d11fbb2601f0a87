/// The reader's engine: a non-recursive RFC 8259 parser over a window of UTF-8 bytes.
///
/// Containers are built on explicit stacks (no recursion, so no stack overflow at any
/// depth). The window may be *final* (the whole input) or a chunk of a stream; in a
/// chunk, running into the end of the window throws ``Failure`` with code
/// `needMoreInput` so the streaming readers can refill and retry.
///
/// The caller keeps the window's memory alive and valid while the parser reads it.
struct JSONParser: ~Copyable {
    /// A failure at a byte offset of the window; turned into a located
    /// ``JSONParseError`` by the caller, who knows where the window sits in the input.
    struct Failure: Error {
        var code: JSONParseError.Code
        var offset: Int
        var message: String
    }

    struct Frame {
        var isObject: Bool
        /// No array or object was opened inside this one (so far).
        var isFlat = true
        var valueStart: Int
        var keyStart: Int
        /// Offset of the opening bracket in the window.
        var textStart = 0
    }

    // MARK: - State

    var base: UnsafePointer<UInt8>
    var end: Int
    var pos: Int
    var isFinal: Bool
    let maximumDepth: Int
    let replacesLoneSurrogates: Bool

    /// Elements of the arrays and member values of the objects being built.
    var values = JSONParserStack<JSONValue>(capacity: 64)
    /// Keys of the objects being built (their values are in `values`).
    var keys = JSONParserStack<String>(capacity: 32)
    var fingerprints = JSONParserStack<UInt64>(capacity: 32)
    var frames = JSONParserStack<Frame>(capacity: 16)
    var scratch: [UInt8] = []
    /// Recently made keys and short values, by their bytes.
    var keyCache: JSONStringCache
    /// Keys expected from the shape of earlier objects.
    var keyPredictor = JSONKeyPredictor()
    /// Small flat objects read recently, by their text.
    var objectCache: JSONObjectCache
    /// Object shapes (key sequences) made recently, by a hash of their keys' fingerprints:
    /// records of an array share one.
    var shapeCache = [JSONObjectShape?](repeating: nil, count: JSONParser.shapeCacheSize)
    static let shapeCacheSize = 64
    var valueCache: JSONStringCache
    /// Set by ``parseString(isKey:)``: a hash of the key's bytes (see ``fingerprint``).
    var lastFingerprint: UInt64 = 0
    /// Set by ``parseString()``: whether the last string had backslash escapes.
    var lastStringHadEscapes = false
    /// Foundation `JSONDecoder` semantics for ``TrellisJSONDecoder`` (off for every other
    /// reader): a repeated key keeps its *first* value, and `-0` keeps its text (so that it
    /// reads as the `Double` -0.0).
    var codableSemantics = false

    /// A parser; `expectedSize` (bytes) sizes the string caches.
    init(options: JSONReader.Options, expectedSize: Int = 1 << 20) {
        keyCache = JSONStringCache(capacity: min(256, max(8, expectedSize / 256)))
        valueCache = JSONStringCache(capacity: min(1024, max(8, expectedSize / 64)))
        objectCache = JSONObjectCache(capacity: min(4096, max(16, expectedSize / 1024)))
        base = UnsafePointer(JSONParser.emptyBytes)
        end = 0
        pos = 0
        isFinal = true
        maximumDepth = options.maximumDepth
        replacesLoneSurrogates = options.loneSurrogatePolicy == .replace
    }

    /// Points the parser at `window`, from offset 0.
    mutating func reset(_ window: UnsafeRawBufferPointer, isFinal: Bool) {
        if let address = window.baseAddress {
            base = address.assumingMemoryBound(to: UInt8.self)
        } else {
            base = UnsafePointer(JSONParser.emptyBytes)
        }
        end = window.count
        pos = 0
        self.isFinal = isFinal
        // A failed attempt (e.g. one that ran out of input) may leave partial containers.
        if frames.count > 0 || values.count > 0 || keys.count > 0 {
            frames.removeAll(from: 0)
            values.removeAll(from: 0)
            keys.removeAll(from: 0)
            fingerprints.removeAll(from: 0)
        }
    }

    // SAFETY: a never-read, never-written placeholder address for empty windows
    // (every read is guarded by `pos < end` with `end == 0`).
    nonisolated(unsafe) static let emptyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)

    // MARK: - Documents

    /// Parses exactly one value surrounded by optional whitespace up to the window's end.
    mutating func parseDocument() throws(Failure) -> JSONValue {
        let value = try parseValue(depthAvailable: maximumDepth)
        skipWhitespace()
        if pos < end {
            throw Failure(
                code: .trailingData, offset: pos,
                message: "expected end of input after the JSON value, found \(JSONParser.describe(base[pos]))")
        }
        return value
    }

    // MARK: - Values

    /// Parses one value starting at `pos` (after optional whitespace); containers may nest
    /// `depthAvailable` levels. Leaves `pos` just after the value.
    mutating func parseValue(depthAvailable: Int) throws(Failure) -> JSONValue {
        let baseFrame = frames.count
        var value: JSONValue
        outer: while true {
            skipWhitespace()
            guard pos < end else { throw endFailure("expected a JSON value") }
            let byte = base[pos]
            switch byte {
            case UInt8(ascii: "\""):
                pos &+= 1
                value = .string(try parseString(isKey: false))
            case UInt8(ascii: "{"):
                try pushFrame(isObject: true, depth: frames.count - baseFrame, depthAvailable: depthAvailable)
                skipWhitespace()
                guard pos < end else { throw endFailure("expected a string key or '}'") }
                if base[pos] == UInt8(ascii: "}") {
                    pos &+= 1
                    _ = frames.popLast()
                    value = .object(JSONObject())
                } else {
                    try parseKeyAndColon(afterComma: false)
                    continue outer
                }
            case UInt8(ascii: "["):
                try pushFrame(isObject: false, depth: frames.count - baseFrame, depthAvailable: depthAvailable)
                skipWhitespace()
                guard pos < end else { throw endFailure("expected a JSON value or ']'") }
                if base[pos] == UInt8(ascii: "]") {
                    pos &+= 1
                    _ = frames.popLast()
                    value = .array([])
                } else {
                    continue outer
                }
            case UInt8(ascii: "t"):
                try parseLiteral(0x6575_7274, "true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try parseLiteral(0x6573_6C61, "false", skipFirst: true)
                value = .bool(false)
            case UInt8(ascii: "n"):
                try parseLiteral(0x6C6C_756E, "null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                throw Failure(code: .unexpectedCharacter, offset: pos, message: "expected a JSON value, found \(JSONParser.describe(byte))")
            }

            // Close every container the value completes.
            while frames.count > baseFrame {
                let frame = frames.last
                // An element, or a member's value (its key is in `keys`).
                values.push(moving: &value, leaving: .null)
                skipWhitespace()
                guard pos < end else {
                    throw endFailure(frame.isObject ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element")
                }
                let next = base[pos]
                if next == UInt8(ascii: ",") {
                    pos &+= 1
                    if frame.isObject { try parseKeyAndColon(afterComma: true) }
                    continue outer
                }
                if frame.isObject {
                    guard next == UInt8(ascii: "}") else {
                        throw Failure(code: .unexpectedCharacter, offset: pos, message: "expected ',' or '}' after object member")
                    }
                    pos &+= 1
                    let length = pos &- frame.textStart
                    if frame.isFlat, length <= JSONObjectCache.maximumLength {
                        // A small flat object: reuse the value of the same text read before.
                        let words = JSONObjectCache.words(base + frame.textStart, count: length)
                        let hash = JSONObjectCache.hash(words, count: length)
                        if let cached = objectCache.lookup(words, count: length, hash: hash) {
                            keys.removeAll(from: frame.keyStart)
                            values.removeAll(from: frame.valueStart)
                            fingerprints.removeAll(from: frame.keyStart)
                            value = cached
                        } else {
                            value = .object(makeObject(frame))
                            objectCache.store(value, words, count: length, hash: hash)
                        }
                    } else {
                        value = .object(makeObject(frame))
                    }
                } else {
                    guard next == UInt8(ascii: "]") else {
                        throw Failure(code: .unexpectedCharacter, offset: pos, message: "expected ',' or ']' after array element")
                    }
                    pos &+= 1
                    value = .array(values.moveArray(from: frame.valueStart))
                }
                _ = frames.popLast()
            }
            return value
        }
    }

    @inline(__always)
    private mutating func pushFrame(isObject: Bool, depth: Int, depthAvailable: Int) throws(Failure) {
        if depth >= depthAvailable {
            throw Failure(
                code: .depthLimitExceeded, offset: pos,
                message: "arrays and objects nested deeper than \(maximumDepth) levels")
        }
        if frames.count > 0 { frames.base[frames.count &- 1].isFlat = false }
        frames.push(Frame(isObject: isObject, valueStart: values.count, keyStart: keys.count, textStart: pos))
        pos &+= 1
    }

    /// Parses `"key"` and `:` (and surrounding whitespace), pushing the key.
    private mutating func parseKeyAndColon(afterComma: Bool) throws(Failure) {
        skipWhitespace()
        guard pos < end else { throw endFailure("expected a string key") }
        let byte = base[pos]
        guard byte == UInt8(ascii: "\"") else {
            let message =
                afterComma && byte == UInt8(ascii: "}")
                ? "expected a string key after ',' (trailing commas are not allowed)"
                : "expected a string key, found \(JSONParser.describe(byte))"
            throw Failure(code: .unexpectedCharacter, offset: pos, message: message)
        }
        pos &+= 1
        let keyStart = pos
        let slot = keyPredictor.slot(depth: frames.count, index: keys.count &- frames.last.keyStart)
        if let slot, keyStart &+ JSONKeyPredictor.maximumLength < end, JSONKeyPredictor.matches(slot, at: base + keyStart) {
            pos = keyStart &+ slot.pointee.length &+ 1
            fingerprints.push(slot.pointee.fingerprint)
            keys.push(slot.pointee.key)
        } else {
            let key = try parseString(isKey: true)
            fingerprints.push(lastFingerprint)
            if let slot {
                if lastStringHadEscapes {
                    slot.pointee.length = -1
                } else {
                    JSONKeyPredictor.remember(
                        key, fingerprint: lastFingerprint, bytes: base + keyStart, length: pos &- 1 &- keyStart,
                        available: end &- keyStart, in: slot)
                }
            }
            keys.push(key)
        }
        skipWhitespace()
        guard pos < end else { throw endFailure("expected ':' after object key") }
        guard base[pos] == UInt8(ascii: ":") else {
            throw Failure(code: .unexpectedCharacter, offset: pos, message: "expected ':' after object key, found \(JSONParser.describe(base[pos]))")
        }
        pos &+= 1
    }

    /// Moves the frame's keys and values into an object. Duplicate keys: the last value
    /// wins, at the first key's position (``JSONObject/append(key:value:)``). Objects with
    /// the keys of one made recently share its ``JSONObjectShape``.
    private mutating func makeObject(_ frame: Frame) -> JSONObject {
        let n = keys.count &- frame.keyStart
        let keyBase = keys.base + frame.keyStart
        let prints = fingerprints.base + frame.keyStart
        // The shape cache, by a hash of the fingerprints (0, for an escaped key, never caches).
        var hash = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        var cacheable = n <= JSONObject.indexThreshold
        for i in 0..<n {
            let f = prints[i]
            if f == 0 { cacheable = false }
            hash = (hash ^ f) &* 0xC2B2_AE3D_27D4_EB4F
        }
        let slot = Int(truncatingIfNeeded: hash >> 40) & (JSONParser.shapeCacheSize - 1)
        if cacheable, let shape = shapeCache[slot], shape.keys.count == n {
            var same = true
            shape.keys.withUnsafeBufferPointer { cached in
                for i in 0..<n where !cached[i].hasSameCodeUnits(as: keyBase[i]) {
                    same = false
                    break
                }
            }
            if same {
                keys.removeAll(from: frame.keyStart)
                fingerprints.removeAll(from: frame.keyStart)
                return JSONObject(shape: shape, values: values.moveArray(from: frame.valueStart))
            }
        }
        var unique = n <= JSONObject.indexThreshold
        if unique && n > 1 {
            // A 64-bit Bloom filter of the fingerprints: a key is compared with the earlier
            // keys only when its bit is already set, or when an escaped key (fingerprint 0,
            // unknown) is involved.
            var seen: UInt64 = 0
            var escapedSeen = false
            search: for i in 0..<n {
                let a = prints[i]
                let bit: UInt64 = 1 &<< (a >> 58)
                if a != 0, !escapedSeen, seen & bit == 0 {
                    seen |= bit
                    continue
                }
                for j in 0..<i {
                    let b = prints[j]
                    if a == b || a == 0 || b == 0, keyBase[i].hasSameCodeUnits(as: keyBase[j]) {
                        unique = false
                        break search
                    }
                }
                if a == 0 { escapedSeen = true } else { seen |= bit }
            }
        }
        fingerprints.removeAll(from: frame.keyStart)
        let objectKeys = keys.moveArray(from: frame.keyStart)
        let objectValues = values.moveArray(from: frame.valueStart)
        if unique {
            let shape = JSONObjectShape(keys: objectKeys)
            if cacheable { shapeCache[slot] = shape }
            return JSONObject(shape: shape, values: objectValues)
        }
        // Repeated keys, or a large object: member by member (the last value wins).
        var object = JSONObject(minimumCapacity: n)
        for i in 0..<n {
            if codableSemantics, object.contains(key: objectKeys[i]) { continue }
            object.append(key: objectKeys[i], value: objectValues[i])
        }
        return object
    }

    /// A cheap summary of a key's bytes; equal keys written without escapes have equal
    /// fingerprints. Never 0 (0 means "unknown, compare the strings").
    @inline(__always)
    static func fingerprint(_ p: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var h = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        if count >= 8 {
            let first = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            let last = UnsafeRawPointer(p + (count - 8)).loadUnaligned(as: UInt64.self)
            h ^= first
            h ^= (last &* 0xC2B2_AE3D_27D4_EB4F)
        } else {
            for i in 0..<count { h = (h << 8) | UInt64(p[i]) ^ (h >> 56) }
        }
        return h | 1
    }

    // MARK: - Whitespace and literals

    @inline(__always)
    mutating func skipWhitespace() {
        while pos < end {
            let b = base[pos]
            if b > 0x20 { return }
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            pos &+= 1
        }
    }

    /// Matches a 4-byte literal (`true`, `null`, or `alse` after `f` when `skipFirst`).
    @inline(__always)
    private mutating func parseLiteral(_ word: UInt32, _ name: StaticString, skipFirst: Bool = false) throws(Failure) {
        let at = skipFirst ? pos &+ 1 : pos
        if at &+ 4 <= end, UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: word) {
            pos = at &+ 4
            return
        }
        try literalFailure(name)
    }

    private mutating func literalFailure(_ name: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var i = 0
        while i < expected.count {
            guard pos &+ i < end else {
                throw endFailure("expected '\(name)'", at: pos)
            }
            if base[pos &+ i] != expected[i] {
                throw Failure(code: .unexpectedCharacter, offset: pos &+ i, message: "invalid literal, expected '\(name)'")
            }
            i &+= 1
        }
    }

    // MARK: - Errors

    /// The failure for running into the end of the window: `unexpectedEndOfInput` when
    /// the window is the whole input, else the streaming readers' `needMoreInput`.
    func endFailure(_ message: String, at offset: Int? = nil) -> Failure {
        if isFinal {
            return Failure(code: .unexpectedEndOfInput, offset: end, message: message + ", found end of input")
        }
        return Failure(code: .needMoreInput, offset: offset ?? end, message: message)
    }

    /// `'x'`, `newline`, `byte 0xC3`: a byte for an error message.
    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0A: return "newline"
        case 0x0D: return "carriage return"
        case 0x09: return "tab"
        case 0x20: return "space"
        case 0x27: return "\"'\""
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x00..<0x20, 0x7F: return "control character U+\(hex(UInt32(byte), width: 4))"
        default: return "byte 0x\(hex(UInt32(byte), width: 2))"
        }
    }

    static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
