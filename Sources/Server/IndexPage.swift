import Foundation
import HLS
import Hummingbird

/// `/`: a plain page listing the live channels with their playlist links.
struct IndexPage {
    let directory: ChannelDirectory
    let configuration: ServerConfiguration

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in
            let body = render(directory.all().map { $0.summary() }, now: Date())
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: body)))
        }
    }

    func render(_ channels: [ChannelSummary], now: Date) -> String {
        let rows = channels.map { channel in
            let uptime = Int(now.timeIntervalSince1970 * 1000 - Double(channel.startedAt)) / 1000
            let state = channel.live ? "LIVE" : "ended"
            let link = "/live/\(channel.name)/index.m3u8"
            return "<li><a href=\"\(link)\">\(channel.name)</a> — \(state), \(channel.width)×\(channel.height) "
                + "@ \(channel.fps) fps, up \(uptime) s, \(channel.segments) segments</li>"
        }
        let list = rows.isEmpty ? "<p>No channel is live.</p>" : "<ul>\n" + rows.joined(separator: "\n") + "\n</ul>"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta http-equiv="refresh" content="5"><title>onair channels</title></head>
            <body><h1>onair channels</h1>
            \(list)
            </body></html>

            """
    }
}
