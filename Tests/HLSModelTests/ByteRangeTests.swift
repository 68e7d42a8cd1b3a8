import Testing

@testable import HLSModel

/// What a Range header asks of a file of 1000 bytes (RFC 9110 14.1.2), with exact values.
@Suite struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=100-199", ByteRange.part(100...199)),
        ("bytes=100-", .part(100...999)),
        ("bytes=900-5000", .part(900...999)),
        ("bytes=-10", .part(990...999)),
        ("bytes=-5000", .part(0...999)),
        ("bytes=-0", .unsatisfiable),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=99999999-", .unsatisfiable),
        ("bytes=99999999999999999999999-", .unsatisfiable),
        ("bytes=200-100", .whole),
        ("bytes=0-1,5-9", .whole),
        ("items=0-1", .whole),
        ("bytes=a-b", .whole),
        ("bytes=-", .whole),
    ])
    func aRangeIsReadAsRFC9110Says(header: String, expected: ByteRange) {
        #expect(ByteRange(header: header, size: 1000) == expected)
    }

    @Test func noHeaderIsTheWholeFileAndAnEmptyFileHasNoPart() {
        #expect(ByteRange(header: nil, size: 1000) == .whole)
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-1", size: 0) == .unsatisfiable)
    }
}
