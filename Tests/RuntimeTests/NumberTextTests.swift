import Testing

import Runtime

@Suite struct NumberTextTests {
    @Test func zeroPaddingFillsToTheWidthAndNeverTruncates() {
        #expect(String(zeroPadded: 7, width: 3) == "007")
        #expect(String(zeroPadded: 0, width: 2) == "00")
        #expect(String(zeroPadded: 12345, width: 3) == "12345")
    }

    @Test func fixedDecimalsRound() {
        #expect(String(fixed: 2, decimals: 3) == "2.000")
        #expect(String(fixed: 1.0335, decimals: 3) == "1.034")
        #expect(String(fixed: 29.97, decimals: 1) == "30.0")
        #expect(String(fixed: 0.004, decimals: 2) == "0.00")
    }
}
