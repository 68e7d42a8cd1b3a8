import HLSModel
import Testing

@testable import Server

@Suite struct IngestTokensTests {
    @Test func aTokensFileGivesEachChannelItsOwnAndNamesItsFirstBadLine() throws {
        let text = "# channel token\n\nalpha alpha-token-0123456789\nbeta\tbeta#token-0123456789\r\n"
        let tokens = try IngestTokens.parse(file: text)
        let alpha: ChannelName = "alpha"
        let beta: ChannelName = "beta"
        #expect(tokens == [alpha: "alpha-token-0123456789", beta: "beta#token-0123456789"])
        let rules = IngestTokens(byChannel: tokens)
        #expect(rules.allows(channel: "beta", authorization: "Bearer beta#token-0123456789"))
        #expect(!rules.allows(channel: "alpha", authorization: "Bearer beta#token-0123456789"))
        #expect(throws: ServerError.ingestTokens(line: 2, reason: "channel alpha is given twice")) {
            try IngestTokens.parse(file: "alpha a-token-0123456789abc\nalpha b-token-0123456789abc")
        }
        #expect(
            throws: ServerError.ingestTokens(
                line: 1, reason: "expected 'CHANNEL TOKEN' (a channel name and a token of at least 16 characters)")
        ) {
            try IngestTokens.parse(file: "../x token-0123456789abcdef")
        }
    }
}
