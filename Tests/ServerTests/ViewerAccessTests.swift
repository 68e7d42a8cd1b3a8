import HLSModel
import HLS
import Testing

@testable import Server

/// Tokens checked against values computed apart from onair (Python's hmac and base64 modules, with
/// the recipe the README gives).
@Suite struct ViewerAccessTests {
    let access = ViewerAccess(secret: "viewer-secret-0123456789", lifetime: 3600)
    /// 2026-11-23T16:16:40Z: in the hour from 16:00, so a token handed out now expires at 18:00.
    let now = 1_795_450_600.0

    @Test func aTokenHandedOutNowWorksToTheEndOfTheNextPeriod() {
        #expect(access.token(channel: "demo", now: now) == "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI")
        // Everyone in one period gets the same token; a second before it, the previous one's.
        #expect(access.token(channel: "demo", now: 1_795_453_199.9) == access.token(channel: "demo", now: now))
        #expect(
            access.token(channel: "demo", now: 1_795_449_599)
                == "1795453200.3f4tSTZDgUYWXedsk6pz5fuRnn-N8q96wI1znSPv8hw")
        #expect(
            access.token(channel: "other", expires: 1_795_453_200)
                == "1795453200.XIeyaVZ5zl6OnmM_8w0UdaFiIUkXc681Jm7RRpQr8NY")
    }

    @Test func aWorkingTokenSaysHowLongItHasLeft() {
        let token = "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI"
        #expect(access.secondsLeft(token: token, channel: "demo", now: now) == 6200)
        #expect(access.secondsLeft(token: token, channel: "demo", now: 1_795_456_799.5) == 1)
        #expect(access.secondsLeft(token: token, channel: "demo", now: 1_795_456_800) == nil, "expired")
    }

    @Test func everyOtherTokenIsRefused() {
        let refused = [
            "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCA",  // one character changed
            "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCJ",  // the same bytes, spelt another way
            "1795460400.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI",  // a later expiry, the old signature
            "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI=",  // padded
            "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVP",  // cut short
            "01795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI",  // another spelling of the time
            "1795456800", ".qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI", "", "a.b", "1.2.3",
        ]
        for token in refused {
            #expect(access.secondsLeft(token: token, channel: "demo", now: now) == nil, "\(token)")
        }
        let token = access.token(channel: "demo", now: now)
        #expect(access.secondsLeft(token: token, channel: "other", now: now) == nil, "another channel's")
        let stranger = ViewerAccess(secret: "another-secret-0123456789")
        #expect(stranger.secondsLeft(token: token, channel: "demo", now: now) == nil, "another secret's")
    }

    @Test func linksGoOnlyToWhoMayHaveThem() {
        let fresh = access.token(channel: "demo", now: now)
        let shorter = access.token(channel: "demo", expires: 1_795_451_000)
        #expect(access.linkToken(channel: "demo", grant: .host, now: now) == fresh)
        #expect(
            access.linkToken(channel: "demo", grant: .token(shorter), now: now) == shorter, "never a longer-lived one")
        #expect(access.linkToken(channel: "demo", grant: .token(shorter), now: 1_795_451_000) == nil)
        #expect(access.linkToken(channel: "demo", grant: .none, now: now) == nil)
        #expect(access.isSecret(bearer: "Bearer viewer-secret-0123456789"))
        #expect(!access.isSecret(bearer: "Bearer viewer-secret-012345678"))
        #expect(!access.isSecret(bearer: nil))
    }

    @Test func aPrivateChannelsEntryCarriesItsLinksOrNone() throws {
        let summary = ChannelSummary(
            name: "demo", state: .live, startedAt: 1_795_450_000_000, width: 640, height: 360, fps: 30,
            format: .fmp4, videoBitrate: 1_000_000, audioBitrate: 128_000, measuredBitrate: 0, segments: 2)
        var signed = ChannelInfo(summary: summary, viewers: 0, nowMilliseconds: 1_795_450_600_000)
        signed.sign(with: "1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI")
        #expect(signed.playlist == "/live/demo/index.m3u8?token=1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI")
        #expect(signed.watch == "/watch/demo?token=1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI")
        #expect(signed.embed == "/embed/demo?token=1795456800.qasyOdUh7EZr0VBCH1_JLi9GhP_xVsrE4bYHbvoVPCI")
        #expect(signed.linksExpireAt == "2026-11-23T18:00:00.000Z" && signed.private == true)
        var unsigned = ChannelInfo(summary: summary, viewers: 0, nowMilliseconds: 1_795_450_600_000)
        unsigned.sign(with: nil)
        let json = String(decoding: try ChannelInfo.json(unsigned), as: UTF8.self)
        #expect(!json.contains("playlist") && !json.contains("token") && json.contains(#""private":true"#))
    }

    @Test func aPrivateAnswerIsKeptNoLongerThanItsToken() {
        let segment = LiveFile(bytes: [], contentType: "video/mp4", immutable: true)
        let playlist = LiveFile(bytes: [], contentType: "application/vnd.apple.mpegurl", immutable: false)
        #expect(LiveRoutes.cacheControl(for: segment, blocking: false, tokenLife: 6200) == "public, max-age=6200")
        #expect(LiveRoutes.cacheControl(for: playlist, blocking: false, tokenLife: 6200) == "public, max-age=1")
        #expect(
            LiveRoutes.cacheControl(for: playlist, blocking: true, tokenLife: 6200) == "public, max-age=0, s-maxage=1")
        #expect(LiveRoutes.cacheControl(for: playlist, blocking: true, tokenLife: 0) == "public, max-age=0, s-maxage=0")
        #expect(LiveRoutes.cacheControl(for: playlist, blocking: false) == "public, max-age=1")
        #expect(LiveRoutes.cacheControl(for: playlist, blocking: true) == "public, max-age=0, s-maxage=1")
        #expect(LiveRoutes.cacheControl(for: segment, blocking: false) == "public, max-age=31536000, immutable")
    }
}

@Suite struct RequestGateTests {
    @Test func pathsWithMalformedEscapesAreRefused() {
        for path in ["/live/demo/seg1.m4s", "/watch/d%65mo", "/live/demo/%41.m4s", "/a%20b"] {
            #expect(RequestGate<ServerContext>.isWellEscaped(path), "\(path)")
        }
        for path in ["/live/demo/seg%zz.m4s", "/watch/%E0%A4%A", "/x%", "/x%4", "/x%C0%AF"] {
            #expect(!RequestGate<ServerContext>.isWellEscaped(path), "\(path)")
        }
    }
}
