import HLS
import HLSModel
import Hummingbird
import Testing

@testable import Server

/// Every refusal of the model is answered with its own status and its reason, whichever route meets it.
@Suite struct RefusalResponseTests {
    @Test func eachRefusalKnowsItsStatus() {
        let ingest: [(IngestAssembler.Refusal, Int)] = [
            (.badRequest("b"), 400), (.full("f"), 507), (.conflict("c"), 409), (.missingFiles("m"), 424),
        ]
        #expect(ingest.allSatisfy { $0.0.status == $0.1 })
        #expect(LiveRequest.Problem.notFound.status == 404)
        #expect(LiveRequest.Problem.badQuery("q").status == 400)
        #expect(LiveFile.Refusal.badRequest("b").status == 400)
        #expect(LiveFile.Refusal.timedOut("t").status == 503)
    }

    @Test func theResponseCarriesTheStatusItsPhraseAndTheReason() {
        let full = HTTPError(IngestAssembler.Refusal.full("channel demo holds 64.0 MB"))
        #expect(full.status.code == 507 && full.status.reasonPhrase == "Insufficient Storage")
        #expect(full.body == "channel demo holds 64.0 MB")
        let missing = HTTPError(IngestAssembler.Refusal.missingFiles("send init.mp4 again"))
        #expect(missing.status.code == 424 && missing.status.reasonPhrase == "Failed Dependency")
        let late = HTTPError(LiveFile.Refusal.timedOut("_HLS_msn=9 did not come in three target durations"))
        #expect(late.status == .serviceUnavailable && late.status.reasonPhrase == "Service Unavailable")
        let unknown = HTTPError(LiveRequest.Problem.notFound)
        #expect(unknown.status == .notFound && unknown.body == "No such channel or file.")
    }
}
