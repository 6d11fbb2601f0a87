import Foundation
import Testing

@testable import Trellis

/// `JSONTextPosition.advanced(over:)` counts many bytes at a time; these compare it with a
/// byte-by-byte count on texts with line feeds and multi-byte scalars at every alignment.
@Suite struct JSONTextPositionTests {
    /// The definition: `line` counts LF bytes, `column` the non-continuation bytes since the last LF.
    static func reference(_ bytes: [UInt8], from start: JSONTextPosition) -> JSONTextPosition {
        var position = start
        for byte in bytes {
            position.byteOffset += 1
            if byte == 0x0A {
                position.line += 1
                position.column = 1
            } else if byte & 0xC0 != 0x80 {
                position.column += 1
            }
        }
        return position
    }

    @Test func countsLikeTheByteByByteDefinition() {
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("\n".utf8), Array("é".utf8), Array("€".utf8), Array("😀".utf8),
            Array("{\"id\":1}".utf8), [0x00], [0xFF], [0x0A, 0x0A],
            Array(String(repeating: "x", count: 40).utf8),
        ]  // runs for the 32-byte ASCII path
        var state: UInt64 = 7
        for length in 0..<400 {
            var bytes: [UInt8] = []
            while bytes.count < length {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes += pieces[Int(state >> 33) % pieces.count]
            }
            let start = JSONTextPosition(byteOffset: 5, line: 3, column: 9)
            let counted = bytes.withUnsafeBytes { start.advanced(over: $0) }
            #expect(counted == Self.reference(bytes, from: start), "length \(bytes.count)")
        }
    }

    @Test func aLongLineWithoutLineFeedsCountsScalars() {
        let text = Array(String(repeating: "ab€", count: 1000).utf8)  // 5,000 bytes, 3,000 scalars
        let counted = text.withUnsafeBytes { JSONTextPosition().advanced(over: $0) }
        #expect(counted == JSONTextPosition(byteOffset: 5000, line: 1, column: 3001))
        let lines = Array((String(repeating: "x\n", count: 99) + "yz").utf8)
        let afterLines = lines.withUnsafeBytes { JSONTextPosition().advanced(over: $0) }
        #expect(afterLines == JSONTextPosition(byteOffset: 200, line: 100, column: 3))
    }
}
