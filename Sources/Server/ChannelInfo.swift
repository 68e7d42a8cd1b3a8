import FoundationEssentials
import HLS
import HLSModel

/// One rendition of a channel's ladder, as the API lists it.
struct RenditionInfo: Codable, Equatable {
    var id: String
    var width: Int
    var height: Int
    var videoBitrate: Int
    var measuredBitrate: Int
}

/// One channel as `GET /api/channels` and the web pages see it.
struct ChannelInfo: Codable, Equatable {
    /// Where the channel is in its life, as a viewer sees it.
    enum State: String, Codable {
        /// Started, but no segment is listed yet.
        case waiting
        case live
        /// Live, but the host paused it: viewers see the last picture under a card and hear silence.
        case paused
        /// The last segment is listed.
        case ended
    }

    var name: String
    var state: State
    /// ISO 8601, UTC, milliseconds.
    var startedAt: String
    var uptimeSeconds: Int
    var width: Int
    var height: Int
    var fps: Int
    var format: String
    var videoBitrate: Int
    var audioBitrate: Int
    var measuredBitrate: Int
    var segments: Int
    /// The ladder, largest first, when the channel has several renditions.
    var renditions: [RenditionInfo]?
    var viewers: Int
    /// Absent for a private channel to a request without its token.
    var playlist: String?
    var watch: String
    var embed: String
    /// The newest picture (`/live/<channel>/thumbnail.jpg`), for a channel this server captures.
    var thumbnail: String?
    /// How far back viewers may rewind (`--dvr`), and the rewind window's playlist; absent without one.
    var dvrSeconds: Int?
    var dvrPlaylist: String?
    /// True for a private channel, absent otherwise.
    var `private`: Bool?
    /// When the links' token stops working (ISO 8601), for a private channel.
    var linksExpireAt: String?
    /// The broadcast's counts, in the control API only.
    var stats: ChannelStatistics?

    init(summary: ChannelSummary, paused: Bool = false, viewers: Int, nowMilliseconds: Int64) {
        name = summary.name.text
        state =
            switch summary.state {
            case .waiting: .waiting
            case .live: paused ? .paused : .live
            case .ended: .ended
            }
        startedAt = ProgramDateTime.format(milliseconds: summary.startedAt)
        uptimeSeconds = Int(max(0, nowMilliseconds - summary.startedAt) / 1000)
        width = summary.width
        height = summary.height
        fps = summary.fps
        format = summary.format.rawValue
        videoBitrate = summary.videoBitrate
        audioBitrate = summary.audioBitrate
        measuredBitrate = summary.measuredBitrate
        segments = summary.segments
        renditions =
            summary.renditions.isEmpty
            ? nil
            : summary.renditions.map {
                RenditionInfo(
                    id: $0.id, width: $0.width, height: $0.height, videoBitrate: $0.videoBitrate,
                    measuredBitrate: $0.measuredBitrate)
            }
        self.viewers = viewers
        playlist = "/live/\(summary.name)/\(MediaFileName.multivariantPlaylist)"
        watch = "/watch/\(summary.name)"
        embed = "/embed/\(summary.name)"
    }

    /// A private channel's links: signed with `token`, or none.
    mutating func sign(with token: String?) {
        self.private = true
        guard let token, let expires = ViewerAccess.expiry(of: token) else {
            playlist = nil
            thumbnail = nil
            dvrPlaylist = nil
            return
        }
        let query = "?token=" + token
        playlist = (playlist ?? "/live/\(name)/\(MediaFileName.multivariantPlaylist)") + query
        watch += query
        embed += query
        thumbnail = thumbnail.map { $0 + query }
        dvrPlaylist = dvrPlaylist.map { $0 + query }
        linksExpireAt = ProgramDateTime.format(milliseconds: Int64(expires) * 1000)
    }

    /// The JSON body: keys sorted, so the same state always reads the same.
    static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
