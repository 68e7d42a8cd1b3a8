import HLSModel
@testable import HLS

/// A channel's timeline feeding its live store directly, as the packaging stage does through the
/// store's runner: each change is published to the store before the call returns.
/// Unchecked: a test changes the timeline from one task; concurrent tasks only wait on the store.
final class TestChannel: @unchecked Sendable {
    struct Configuration {
        var channel: ChannelName
        var format: ContainerFormat
        var segmentDuration: Double
        var playlistSize: Int
        var codecs: [String]
        var width: Int
        var height: Int
        var fps: Int
        var videoBitrate: Int
        var audioBitrate: Int
        var partDuration: Double? = nil
    }

    private(set) var timeline: Timeline
    let store: LiveStore

    init(configuration c: Configuration, startedAt: Int64, continuing previous: Timeline.PreviousRun? = nil) {
        timeline = Timeline(
            configuration: .init(
                channel: c.channel,
                rendition: Rendition(
                    width: c.width, height: c.height, fps: c.fps, videoBitrate: c.videoBitrate,
                    audioBitrate: c.audioBitrate, codecs: c.codecs),
                format: c.format, segmentDuration: c.segmentDuration, playlistSize: c.playlistSize,
                partDuration: c.partDuration),
            continuing: previous)
        store = LiveStore(timeline: timeline, startedAt: startedAt)
    }

    @discardableResult
    func setInitSegment(_ bytes: [UInt8]) -> Publication? {
        publish(timeline.setInitSegment(bytes))
    }

    @discardableResult
    func appendFragment(_ bytes: [UInt8], duration: Double, independent: Bool) -> Publication? {
        publish(timeline.appendPart(bytes, duration: duration, independent: independent))
    }

    @discardableResult
    func closeSegment(programDateTime: Int64) -> Publication {
        publish(timeline.closeSegment(programDateTime: programDateTime))!
    }

    @discardableResult
    func end() -> Publication {
        publish(timeline.end())!
    }

    private func publish(_ publication: Publication?) -> Publication? {
        if let publication { store.receive(publication) }
        return publication
    }

    func file(named name: String) -> LiveFile? { store.file(named: name) }
    func summary() -> ChannelSummary { store.summary() }
    func multivariantPlaylist(session: String?) -> MultivariantPlaylist { store.multivariantPlaylist(session: session) }
    func mediaPlaylist(skip: Bool) -> [UInt8] { store.mediaPlaylist(skip: skip ? .yes : nil) }
    func waitUntilListed(msn: Int, part: Int?, timeout: Duration) async -> Bool {
        await store.waitUntilListed(msn: msn, part: part, timeout: timeout)
    }
    func part(named name: String, timeout: Duration) async -> LiveFile? {
        await store.part(named: name, timeout: timeout)
    }
    func checkReload(msn: Int?, part: Int?) throws(LiveFile.Refusal) {
        try store.checkReload(msn: msn, part: part)
    }
    var continuation: (firstSequence: Int, earlierSegments: Int) { timeline.continuation }
    var initSegmentName: String? { timeline.initSegmentName?.description }
    /// The segments held, listed or not (for tests of retention).
    var heldSegmentNames: [String] { timeline.segments.map(\.name.description) }
}

extension Publication {
    /// The names of the files this change made no longer downloadable.
    var removed: [String] {
        events.flatMap { event -> [String] in
            if case .expired(let names) = event { return names.map(\.description) }
            return []
        }
    }
}
