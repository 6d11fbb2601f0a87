import Foundation
import Testing

@testable import Trellis

@Suite struct JSONValueTests {
    @Test func objectKeepsOrderAndLastValueWins() {
        var object = JSONObject()
        object.append(key: "b", value: 1)
        object.append(key: "a", value: 2)
        object.append(key: "b", value: 3)
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == 3)
    }

    @Test func largeObjectUsesIndexAndStaysConsistent() {
        var object = JSONObject()
        for i in 0..<100 { object.append(key: "k\(i)", value: .number(JSONNumber(Int64(i)))) }
        object["k50"] = nil
        #expect(object.count == 99)
        #expect(object["k51"] == 51)
        #expect(object["k50"] == nil)
        #expect(object.position(of: "k99") == 98)
    }

    @Test func numberViewsAreExact() {
        #expect(JSONNumber(text: "9223372036854775807")?.int64Value == .max)
        #expect(JSONNumber(text: "-9223372036854775808")?.int64Value == .min)
        #expect(JSONNumber(text: "9223372036854775808")?.int64Value == nil)
        #expect(JSONNumber(text: "1.0e2")?.int64Value == 100)
        #expect(JSONNumber(text: "1.5")?.int64Value == nil)
        #expect(JSONNumber(text: "1e400")?.doubleValue == nil)
        #expect(JSONNumber(text: "0.1")?.decimalValue == Decimal(string: "0.1"))
        #expect(JSONNumber(text: "01") == nil)
        #expect(JSONNumber(text: "1.") == nil)
        #expect(JSONNumber(0.1).text == "0.1")
    }

    @Test func numberEqualityAndHashAgree() {
        let a = JSONNumber(text: "100")!
        let b = JSONNumber(text: "1e2")!
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(JSONNumber(2.5) == JSONNumber(text: "2.5")!)
        #expect(JSONNumber(text: "18446744073709551616")! != JSONNumber(text: "18446744073709551617")!)
    }
}
