import Foundation
import HLS

/// One channel as `GET /api/channels` and the web pages see it.
struct ChannelInfo: Codable, Equatable {
    var name: String
    var state: ChannelState
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
    var viewers: Int
    var playlist: String
    var watch: String
    var embed: String
    /// The broadcast's counts, in the control API only.
    var stats: ChannelStatistics?

    init(summary: ChannelSummary, viewers: Int, nowMilliseconds: Int64) {
        name = summary.name
        state = summary.state
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
        self.viewers = viewers
        playlist = "/live/\(summary.name)/\(SegmentStore.multivariantPlaylistName)"
        watch = "/watch/\(summary.name)"
        embed = "/embed/\(summary.name)"
    }

    /// The JSON body: keys sorted, so the same state always reads the same.
    static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
