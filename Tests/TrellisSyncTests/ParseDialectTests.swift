import Foundation
import Testing
import Trellis

@testable import TrellisSync

/// `ParseDialect.convert` on single records: every member survives the conversion, in order.
@Suite struct ParseDialectTests {
    /// Scalars after the first typed value are kept (they were dropped once: a Holiday whose
    /// `date` came before `details` and `updatedAt` lost both, and the walk failed on the
    /// missing cursor).
    @Test func scalarsAfterATypedValueAreKept() throws {
        let record = try JSONReader.parse(
            #"""
            {"createdAt": "2026-11-10T10:00:00.000Z", "date": {"__type": "Date", "iso": "2027-01-01T00:00:00.000Z"},
             "details": "The first day", "observedBy": ["Worldwide"],
             "owner": {"__type": "Pointer", "className": "_User", "objectId": "u8Kd2mQx1a"},
             "image": {"__type": "File", "name": "a.png", "url": "https://files.example/a.png"},
             "objectId": "hA1b2C3d4e", "updatedAt": "2026-11-10T10:00:00.000Z"}
            """#)
        var remarks: [ParseDialect.Remark] = []
        let converted = try #require(ParseDialect.convert(record, at: .root, remarks: &remarks))
        #expect(
            converted
                == (try JSONReader.parse(
                    #"""
                    {"createdAt": "2026-11-10T10:00:00.000Z", "date": "2027-01-01T00:00:00.000Z", "details": "The first day",
                     "observedBy": ["Worldwide"], "owner": "u8Kd2mQx1a", "image": "https://files.example/a.png",
                     "objectId": "hA1b2C3d4e", "updatedAt": "2026-11-10T10:00:00.000Z"}
                    """#)))
        #expect(converted.objectValue?.members.map(\.key) == ["createdAt", "date", "details", "observedBy", "owner", "image", "objectId", "updatedAt"])
        #expect(remarks.isEmpty)
    }
}
