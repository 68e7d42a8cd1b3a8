import HLSModel
import Foundation
import Testing
import HLS

@testable import Push

/// `--push` and `--push-header` values: what each form means, and one line for each that cannot work.
@Suite struct PushDestinationTests {
    static let credentials = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]

    @Test func httpIngestTakesBasicAuthFromTheURLAndTheHeaders() throws {
        let header = try PushDestination.header("X-Ingest-Key:  k1 ")
        #expect(header == .init(name: "X-Ingest-Key", value: "k1"))
        let destination = try PushDestination.parse(
            "https://user:p%40ss@ingest.example.com:8443/live/demo", headers: [header], environment: [:])
        guard case .http(let base, let headers) = destination else { Issue.record("not http"); return }
        #expect(base.absoluteString == "https://ingest.example.com:8443/live/demo/")
        #expect(headers.map(\.name) == ["Authorization", "X-Ingest-Key"])
        #expect(headers[0].value == "Basic " + Data("user:p@ss".utf8).base64EncodedString())
        // Logs never show the password.
        #expect(destination.description == "https://ingest.example.com:8443/live/demo/")
    }

    @Test func s3TakesEndpointRegionAndCredentialsFromTheEnvironment() throws {
        let environment = Self.credentials.merging([
            "AWS_ENDPOINT_URL": "http://127.0.0.1:8333", "AWS_REGION": "eu-west-3", "AWS_SESSION_TOKEN": "t",
        ]) { $1 }
        let destination = try PushDestination.parse("s3://live/shows/demo", environment: environment)
        #expect(
            destination
                == .s3(
                    .init(
                        bucket: "live", prefix: "shows/demo/", endpoint: URL(string: "http://127.0.0.1:8333")!,
                        region: "eu-west-3",
                        credentials: .init(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "t"))))
        #expect(destination.description == "s3://live/shows/demo/")
        // AWS itself when no endpoint is set.
        guard case .s3(let aws) = try PushDestination.parse("s3://b", environment: Self.credentials) else {
            Issue.record("not s3")
            return
        }
        #expect(aws.endpoint.absoluteString == "https://s3.us-east-1.amazonaws.com")
        #expect(aws.prefix == "")
    }

    @Test func anOriginPushesEachChannelInAFolderOfItsOwn() throws {
        let http = try PushDestination.parse(
            "http://second:8080/ingest", headers: [.init(name: "Authorization", value: "Bearer t")], environment: [:])
        #expect(http.inFolder("demo").description == "http://second:8080/ingest/demo/")
        guard case .http(_, let headers) = http.inFolder("demo") else { Issue.record("not http"); return }
        #expect(headers == [.init(name: "Authorization", value: "Bearer t")])
        let s3 = try PushDestination.parse("s3://live/origin/", environment: Self.credentials)
        #expect(s3.inFolder("demo").description == "s3://live/origin/demo/")
        let bucketTop = try PushDestination.parse("s3://live", environment: Self.credentials)
        #expect(bucketTop.inFolder("demo").description == "s3://live/demo/")
        let rtmp = try PushDestination.parse("rtmp://example.com/live/key", environment: [:])
        #expect(rtmp.inFolder("demo") == rtmp)
    }

    @Test func rtmpHidesItsStreamKey() throws {
        let destination = try PushDestination.parse("rtmp://a.rtmp.youtube.com/live2/abcd-efgh", environment: [:])
        guard case .packets(let link) = destination else {
            Issue.record("not a packet destination: \(destination)")
            return
        }
        #expect(link.format == "flv" && link.url == URL(string: "rtmp://a.rtmp.youtube.com/live2/abcd-efgh")!)
        #expect(!link.verifiesTLS && link.steadyRateReason == "an RTMP service may expect a steady rate")
        #expect(destination.description == "rtmp://a.rtmp.youtube.com/live2/…")
    }

    @Test func srtIsMPEGTSAsTheCallerAndHidesItsSecrets() throws {
        let text = "srt://ingest.example:9000?streamid=%23!::r=live/demo,m=publish&passphrase=0123456789abcdef"
        let destination = try PushDestination.parse(text, environment: [:])
        guard case .packets(let link) = destination else {
            Issue.record("not a packet destination: \(destination)")
            return
        }
        #expect(link.format == "mpegts" && link.url.absoluteString == text)
        #expect(link.options == [.init("mode", "caller"), .init("connect_timeout", "5000")])
        #expect(link.steadyRateReason == "MPEG-TS carries no frame durations" && !link.verifiesTLS)
        #expect(destination.description == "srt://ingest.example:9000?…")
        #expect(try PushDestination.parse("srt://10.0.0.2:9000", environment: [:]).description == "srt://10.0.0.2:9000")
    }

    @Test(arguments: [
        (
            "ftp://host/x/",
            "--push ftp://host/x/: unknown scheme 'ftp'; use http(s)://HOST/PATH/, s3://BUCKET/PREFIX/, rtmp(s)://HOST/APP/KEY or srt://HOST:PORT"
        ),
        (
            "not a url",
            "--push not a url: not a URL; use http(s)://HOST/PATH/, s3://BUCKET/PREFIX/, rtmp(s)://HOST/APP/KEY or srt://HOST:PORT"
        ),
        (
            "s3://bucket/p/",
            "--push s3://bucket/p/: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (never on the command line)"
        ),
        ("rtmp://host/app", "--push rtmp://host/app: expected rtmp://HOST/APP/STREAM-KEY"),
        ("http://host/x/?a=b", "--push http://host/x/?a=b: expected http(s)://HOST/PATH/ with no query"),
        ("srt://host", "--push srt://host: expected srt://HOST:PORT[?streamid=…&passphrase=…]"),
        ("srt://host:9000/x", "--push srt://host:9000/x: expected srt://HOST:PORT[?streamid=…&passphrase=…]"),
        (
            "srt://host:9000?mode=listener",
            "--push srt://host:9000?mode=listener: unknown SRT option 'mode'; expected srt://HOST:PORT[?streamid=…&passphrase=…]"
        ),
        (
            "srt://host:9000?passphrase=short",
            "--push srt://host:9000?passphrase=short: an SRT passphrase is 10 to 64 characters"
        ),
        ("srt://host:9000?streamid=", "--push srt://host:9000?streamid=: a streamid is 1 to 512 characters"),
    ])
    func badValuesAreRefusedInOneLine(value: String, message: String) {
        #expect(throws: PushDestination.Refusal(description: message)) {
            try PushDestination.parse(value, environment: [:])
        }
    }

    @Test func badHeadersAreRefused() {
        for text in ["no colon", ": empty name", "Bad Name: x", "X-A: line\nbreak"] {
            #expect(throws: PushDestination.Refusal.self) { try PushDestination.header(text) }
        }
    }

    @Test func aBucketSaysItsAddressAndStoresEachFileWithItsTypeAndCaching() throws {
        guard case .s3(let location) = try PushDestination.parse("s3://live/archive", environment: Self.credentials)
        else { Issue.record("not s3"); return }
        #expect(
            S3Store(location: location, playlistCaching: "no-cache", trust: .system).address == "s3://live/archive/")
        #expect(MediaFileName.contentType(of: "demo/2026-11-24T07-05-09Z/720p/seg3.m4s") == "video/mp4")
        #expect(MediaFileName.contentType(of: "720p/media.m3u8") == "application/vnd.apple.mpegurl")
        #expect(MediaFileName.contentType(of: ".onair-recording") == "application/octet-stream")
        #expect(
            MediaFileName.cacheControl(of: "720p/seg3.m4s", playlists: "no-cache")
                == "public, max-age=31536000, immutable")
        #expect(MediaFileName.cacheControl(of: "720p/media.m3u8", playlists: "no-cache") == "no-cache")
        #expect(MediaFileName.cacheControl(of: "index.m3u8", playlists: "public, max-age=1") == "public, max-age=1")
    }
}
