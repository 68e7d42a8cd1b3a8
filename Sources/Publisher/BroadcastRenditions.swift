import Encoding
import FoundationEssentials
import HLS
import Packaging
import HLSModel
import Logging
import Media
import Push
import Runtime

/// A broadcast's renditions, assembled from its plan: per rendition an encoder (video), a
/// packaging stage on the broadcast's clock and segment grid, its live store, and its sinks, each
/// on a thread of its own; the packet destinations fed the top rendition's encoders.
struct BroadcastRenditions: Sendable {
    var stages: [RenditionStages] = []
    /// The ladder's shared sound, packaged as a rendition of its own.
    var audioPackaging: Handoff<PackagingStage>?
    /// The live stores viewers read, largest first.
    var stores: [LiveStore] = []
    var sinks: [SinkRunner] = []
    /// How each push destination fares, for the status line and the control API.
    var pushes: [PushStatus] = []
    var packetSinks: [any PacketSink] = []

    /// The top rendition's store: what the status line, the control API and the metrics follow.
    var store: LiveStore { stores[0] }

    struct Context: Sendable {
        let config: BroadcastConfiguration
        let plan: BroadcastPlan
        let clock: MediaClock
        let numbering: EpochNumbering.Start
        /// The sound's track, when there is sound.
        let audioStream: StreamDescription?
        let board: LadderBoard?
        let markers: MarkerBook
        /// The captions' cues, when the channel has captions.
        let captions: CaptionBook?
        let report: EventReporter
        let logger: Logger
    }

    init(_ context: Context) throws {
        let config = context.config
        var topTracks: [StreamDescription] = []
        let captions = context.captions.map { Self.captions(book: $0, context: context) }
        for number in context.plan.outputs.indices where context.plan.outputs[number] != Rendition.captionsID {
            let rung = number < config.renditions.count ? config.renditions[number] : nil
            let encoding = try rung.map { try Self.encoding(of: $0, config: config) }
            let videoStream = encoding?.stream
            if number == 0 { topTracks = [videoStream!] + (context.audioStream.map { [$0] } ?? []) }
            let (timeline, tracks) = Self.timeline(
                number: number, rung: rung, videoStream: videoStream, context: context)
            let store = LiveStore(timeline: timeline, startedAt: context.clock.anchorWallMilliseconds)
            let (runners, pushes) = Self.sinks(number: number, store: store, context: context)
            let packaging = try Self.packaging(
                timeline: timeline, tracks: tracks, video: rung != nil, runners: runners,
                captions: number == 0 ? captions?.packager : nil, context: context)
            if let rung, let encoding {
                stages.append(RenditionStages(id: rung.id, encoding: encoding.stage, packaging: packaging))
            } else {
                audioPackaging = packaging
            }
            stores.append(store)
            sinks += runners
            self.pushes += pushes
        }
        if let captions {
            stores.append(captions.store)
            sinks += captions.runners
            self.pushes += captions.pushes
        }
        packetSinks = config.push.compactMap { destination -> (any PacketSink)? in
            guard case .packets(let link) = destination else { return nil }
            return PacketPusher(
                link: link, channel: config.channel, streams: topTracks, trust: config.pushTrust,
                report: context.report)
        }
    }

    /// A rendition's timeline (going on from its folder's earlier run, if any) and the tracks it
    /// carries: a rung's video with the sound muxed in, or without it beside a shared sound; or
    /// that shared sound alone.
    private static func timeline(
        number: Int, rung: RenditionLadder.Rung?, videoStream: StreamDescription?, context: Context
    ) -> (Timeline, [StreamDescription]) {
        let config = context.config
        let shared = context.plan.sharesAudio
        let audioStream = context.audioStream
        let rendition: Rendition
        let tracks: [StreamDescription]
        if let rung, let videoStream {
            tracks = [videoStream] + (shared ? [] : audioStream.map { [$0] } ?? [])
            rendition = Rendition(
                id: rung.id, width: rung.width, height: rung.height, fps: config.fps,
                videoBitrate: rung.videoBitrate,
                audioBitrate: audioStream == nil || shared ? 0 : config.audioBitrate,
                codecs: tracks.map(\.codecString))
        } else {
            tracks = audioStream.map { [$0] } ?? []
            rendition = .audio(
                bitrate: config.audioBitrate, codecs: tracks.map(\.codecString), channels: AudioEncoder.channels)
        }
        let previous = context.plan.previous[number]
        let firstSequence = context.numbering.sequence
        let timeline = Timeline(
            configuration: .init(
                channel: config.channel, rendition: rendition, format: config.format,
                segmentDuration: config.segmentDuration, playlistSize: config.playlistSize,
                partDuration: config.partDuration),
            continuing: previous, firstSequence: firstSequence)
        if number == 0, previous == nil {
            context.logger.notice(
                "numbering segments from \(firstSequence) (the broadcast's start on the epoch): the same names wherever it is served"
            )
        }
        if number == 0, let earlier = previous {
            let (first, kept) = timeline.continuation
            context.logger.notice(
                "continuing channel \(config.channel) after an earlier run: its next segment is \(first)\(kept > 0 ? ", after \(kept) of the earlier run's (EXT-X-DISCONTINUITY between)" : "")\(earlier.playlist.ended ? "" : "; the earlier run did not stop cleanly")"
            )
        }
        return (timeline, tracks)
    }

    /// The captions' rendition: its timeline (numbered as the others, going on from its folder's
    /// earlier run), its live store and sinks, and how to make the packager the top rendition's
    /// stage drives (made there, as it goes to that stage's thread with it).
    private static func captions(book: CaptionBook, context: Context) -> (
        packager: @Sendable () -> CaptionPackager, store: LiveStore, runners: [SinkRunner], pushes: [PushStatus]
    ) {
        let config = context.config
        let number = context.plan.outputs.count - 1
        let settings = config.captions ?? .init()
        let timeline = Timeline(
            configuration: .init(
                channel: config.channel,
                rendition: .captions(.init(language: settings.language, name: settings.name)), format: .webVTT,
                // Whole segments only, under Low-Latency HLS too: hls.js (1.7) stops loading a
                // subtitle playlist's parts after a few, and shows no more captions.
                segmentDuration: config.segmentDuration, playlistSize: config.playlistSize, partDuration: nil),
            continuing: context.plan.previous[number], firstSequence: context.numbering.sequence)
        let store = LiveStore(timeline: timeline, startedAt: context.clock.anchorWallMilliseconds)
        let (runners, pushes) = sinks(number: number, store: store, context: context)
        let (board, markers) = (context.board, context.markers)
        let packager: @Sendable () -> CaptionPackager = {
            CaptionPackager(timeline: timeline, book: book, sinks: runners, board: board, markers: markers)
        }
        return (packager, store, runners, pushes)
    }

    /// A rung's encoder (and the scaler that makes its picture from the captured one), ready for
    /// its thread, and the stream it makes.
    private static func encoding(of rung: RenditionLadder.Rung, config: BroadcastConfiguration) throws -> (
        stage: Handoff<VideoEncodingStage>, stream: StreamDescription
    ) {
        let encoder = try VideoEncoder(
            settings: VideoEncoderSettings(
                codec: rung.codec, width: rung.width, height: rung.height, fps: config.fps,
                bitrate: rung.videoBitrate, keyframeInterval: config.keyframeInterval),
            track: TrackID(0))
        let stream = encoder.stream
        // A rung of the captured size (the top, or the top in another codec) takes its picture as is.
        let scaler =
            rung.width == config.width && rung.height == config.height
            ? nil : try RungScaler(width: rung.width, height: rung.height)
        return (Handoff(VideoEncodingStage(id: rung.id, encoder: encoder, scaler: scaler)), stream)
    }

    /// A rendition's packaging stage on the broadcast's clock and segment grid, ready for its
    /// thread; the top one drives the captions' packager too.
    private static func packaging(
        timeline: Timeline, tracks: [StreamDescription], video: Bool, runners: [SinkRunner],
        captions: (@Sendable () -> CaptionPackager)?, context: Context
    ) throws -> Handoff<PackagingStage> {
        Handoff(
            try PackagingStage(
                timeline: timeline, tracks: tracks, segmenter: segmenter(video: video, config: context.config),
                clock: context.clock, sinks: runners, board: context.board, markers: context.markers,
                captions: captions?()))
    }

    /// A rendition's sinks, each on its own thread: the live store viewers read, the folder, and
    /// where the channel's destinations send it (pushes, the rewind window, recordings).
    private static func sinks(number: Int, store: LiveStore, context: Context) -> ([SinkRunner], [PushStatus]) {
        let config = context.config
        let plan = context.plan
        let folder = plan.folder(of: number)
        var runners = [SinkRunner(store)]
        if let directory = config.hlsDirectory {
            let mirror = DirectoryMirror(
                root: URL(fileURLWithPath: directory), channel: config.channel, rendition: folder,
                writesIndex: number == 0, earlier: plan.previous[number], report: context.report)
            runners.append(SinkRunner(mirror))
        }
        let lasting = plan.destinations.startLastingSinks(
            of: config.channel, rendition: folder, writesIndex: number == 0)
        runners += lasting.runners
        runners += plan.recordings?.sinks(rendition: folder, writesIndex: number == 0, after: nil) ?? []
        return (runners, lasting.pushes)
    }

    /// Where a rendition is cut: on the video's frames, or for the sound on the same grid at the
    /// first AAC frame on or after each point.
    private static func segmenter(video: Bool, config: BroadcastConfiguration) -> Segmenter.Configuration {
        video
            ? Segmenter.Configuration(
                segmentDuration: config.segmentDuration, partDuration: config.partDuration,
                frameDuration: 1 / Double(config.fps))
            : Segmenter.Configuration(
                segmentDuration: config.segmentDuration, partDuration: config.partDuration,
                frameDuration: Double(AudioEncoder.samplesPerFrame) / Double(AudioEncoder.sampleRate),
                cutsOn: .audio)
    }
}
