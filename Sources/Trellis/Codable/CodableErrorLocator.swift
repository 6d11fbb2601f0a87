import Foundation

/// Adds the place of a failing value to a `DecodingError`: its line and column in the
/// input and its JSON path (`(line 3, column 12, at $.statuses[0].id)`), found by walking
/// the text along the coding path. Runs only when decoding fails.
enum CodableErrorLocator {
    /// Where the text `bytes` sits and how its coding path starts: for a whole document,
    /// nothing; for the value at a key path, the key path's keys (matched as written, not
    /// through the key strategy); for a streamed element, its index and position.
    struct Frame {
        /// The position in the whole input of `bytes[0]`.
        var origin = JSONTextPosition()
        /// The JSON path of the value `bytes` holds.
        var path = JSONPath.root
        /// Leading coding keys that lead to `bytes` (not walked in it).
        var outsideKeys = 0
        /// Coding keys after those that name JSON keys as written (a key path's).
        var rawKeys = 0
        /// The streamed element's index, said in the description.
        var element: Int?
    }

    /// `error` with the same case, coding path and underlying error, its description
    /// followed by the place of the value it is about.
    static func located(_ error: DecodingError, state: CodableDecodingState, in bytes: UnsafeRawBufferPointer, frame: Frame = Frame()) -> DecodingError {
        guard let context = error.codableContext else { return error }
        var keys = context.codingPath
        if let failure = state.failure, failure.description == context.debugDescription { keys = failure.path }
        let walkedKeys = Array(keys.dropFirst(min(frame.outsideKeys, keys.count)))
        let (offset, path) = walk(bytes, along: walkedKeys, rawKeys: frame.rawKeys, state: state, from: frame.path)
        let position = frame.origin.advanced(over: UnsafeRawBufferPointer(rebasing: bytes[0..<offset]))
        let element = frame.element.map { "element \($0), " } ?? ""
        let place = "\(element)line \(position.line), column \(position.column), at \(path)"
        let described = DecodingError.Context(
            codingPath: context.codingPath, debugDescription: context.debugDescription + " (\(place))", underlyingError: context.underlyingError)
        return error.withCodableContext(described)
    }

    /// The offset of the value at `keys` (or of the deepest value found on the way) and
    /// its JSON path (from `root`); the first `rawKeys` keys are matched as written.
    static func walk(
        _ bytes: UnsafeRawBufferPointer, along keys: [any CodingKey], rawKeys: Int = 0, state: CodableDecodingState, from root: JSONPath = .root
    ) -> (Int, JSONPath) {
        var scanner = Scanner(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { scanner.pos = 3 }
        scanner.skipWhitespace()
        var path = root
        var walked: [any CodingKey] = []
        for (i, key) in keys.enumerated() {
            let valueStart = scanner.pos
            guard scanner.pos < bytes.count else { break }
            switch bytes[scanner.pos] {
            case UInt8(ascii: "["):
                guard let index = key.intValue ?? (i < rawKeys ? Int(key.stringValue) : nil), scanner.enterArrayElement(index) else {
                    return (valueStart, path)
                }
                path = path.appending(index: index)
            case UInt8(ascii: "{"):
                guard let name = scanner.enterObjectMember(matching: key, walked: walked, asWritten: i < rawKeys, state: state) else {
                    return (valueStart, path)
                }
                path = path.appending(key: name)
            default:
                return (valueStart, path)
            }
            walked.append(key)
        }
        return (scanner.pos, path)
    }

    /// A forward scanner over text the reader has accepted (so it checks nothing).
    struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var pos = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func skipWhitespace() {
            while pos < bytes.count, bytes[pos] == 0x20 || bytes[pos] == 0x0A || bytes[pos] == 0x0D || bytes[pos] == 0x09 { pos += 1 }
        }

        /// Moves past the string starting at `pos` (its opening quote).
        mutating func skipString() {
            pos += 1
            while pos < bytes.count {
                let b = bytes[pos]
                if b == UInt8(ascii: "\\") {
                    pos += 2
                    continue
                }
                pos += 1
                if b == UInt8(ascii: "\"") { return }
            }
        }

        /// Moves past the value starting at `pos`.
        mutating func skipValue() {
            guard pos < bytes.count else { return }
            var depth = 0
            repeat {
                guard pos < bytes.count else { return }
                let b = bytes[pos]
                switch b {
                case UInt8(ascii: "\""): skipString()
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    pos += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    pos += 1
                default:
                    if depth == 0 {
                        // A scalar: up to the next delimiter.
                        while pos < bytes.count, !Self.isDelimiter(bytes[pos]) { pos += 1 }
                        return
                    }
                    pos += 1
                }
            } while depth > 0
        }

        static func isDelimiter(_ b: UInt8) -> Bool {
            b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
        }

        /// From the `[` at `pos` to the start of element `index`; false when there is none.
        mutating func enterArrayElement(_ index: Int) -> Bool {
            pos += 1
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") { return false }
            var i = 0
            while i < index {
                skipValue()
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ",") else { return false }
                pos += 1
                skipWhitespace()
                i += 1
            }
            return true
        }

        /// From the `{` at `pos` to the value of the first member whose key, converted by
        /// the decoder's key strategy, is `key`; its JSON key, or nil when there is none.
        mutating func enterObjectMember(matching key: any CodingKey, walked: [any CodingKey], asWritten: Bool = false, state: CodableDecodingState) -> String? {
            pos += 1
            while true {
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { return nil }
                let keyStart = pos
                skipString()
                let raw = UnsafeRawBufferPointer(rebasing: bytes[keyStart..<pos])
                let name = (try? JSONReader.parse(raw))?.stringValue ?? ""
                skipWhitespace()
                pos += 1  // ':'
                skipWhitespace()
                let converted = asWritten ? name : state.convertedKey(name, walked: walked)
                if converted == key.stringValue { return name }
                skipValue()
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ",") else { return nil }
                pos += 1
            }
        }
    }
}

extension DecodingError {
    /// The context of any case.
    var codableContext: Context? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            return context
        @unknown default:
            return nil
        }
    }

    /// The same case with `context`.
    func withCodableContext(_ context: Context) -> DecodingError {
        switch self {
        case .typeMismatch(let type, _): return .typeMismatch(type, context)
        case .valueNotFound(let type, _): return .valueNotFound(type, context)
        case .keyNotFound(let key, _): return .keyNotFound(key, context)
        case .dataCorrupted: return .dataCorrupted(context)
        @unknown default: return self
        }
    }
}
