import FoundationEssentials
public import HLS
public import HLSModel
import Metrics
public import Runtime

/// Sends a channel's files to an HTTP ingest or S3-compatible storage, on its runner's thread.
///
/// Each publication brings the destination up to that timeline, as the folder sink does: missing
/// media files first, then the playlist (only when everything it names is there, one upload at a
/// time, so an older playlist never overwrites a newer one), then the multivariant playlist, then
/// removals of what has left the availability window. A failure that may pass (no answer, 5xx) is
/// retried with backoff until it succeeds or a newer publication supersedes it; a segment still not
/// stored one segment duration after it was cut is given up and listed as EXT-X-GAP, so players of
/// the destination skip it instead of stalling. Any other refusal (401, 403, 404…) is reported and
/// tried again every ``refusedRetry`` seconds. Failures and recoveries are each said once per episode.
public final class PushSink: PublicationSink {
    public let destination: String
    public let status: PushStatus
    private let store: any FileStore
    private let report: EventReporter
    /// Low-Latency HLS parts go to an HTTP ingest (an LL-HLS origin); a bucket holds whole segments.
    private let sendsPartsWhenLowLatency: Bool
    private let metrics: PushMetrics
    /// The rendition's folder at the destination (`720p/`) for a channel published in several; empty for one.
    private let folder: String
    /// Sends the channel's multivariant playlist (one rendition's sink does).
    private let writesIndex: Bool
    // Used by the runner's thread only.
    private var plan: DestinationPlan?
    private var failure: StoreFailure?
    private var gapsThisEpisode = 0
    private var retryAfterRefusal = 0.0

    /// Seconds between tries after a refusal that will not pass by itself.
    public static let refusedRetry = 10.0

    /// The sink for `destination`, nil for RTMP (sent from the encoders). `rendition`: for a channel
    /// published in several, the one this sink sends, into a folder of that name; `writesIndex`: this
    /// sink sends the channel's multivariant playlist; `trust`: whom its TLS trusts.
    public static func make(
        _ destination: PushDestination, channel: ChannelName, rendition: String? = nil, writesIndex: Bool = true,
        trust: PushTrust, report: @escaping EventReporter
    ) -> PushSink? {
        let name = destination.description + (rendition.map { " (\($0))" } ?? "")
        return switch destination {
        case .http(let base, let headers):
            PushSink(
                store: HTTPIngestStore(
                    base: base.absoluteString, headers: headers, transport: .shared(trusting: trust)),
                destination: name,
                channel: channel, sendsParts: true, folder: rendition, writesIndex: writesIndex, report: report)
        case .s3(let location):
            PushSink(
                store: S3Store(location: location, trust: trust), destination: name, channel: channel,
                sendsParts: false,
                folder: rendition, writesIndex: writesIndex, report: report)
        case .packets:
            nil
        }
    }

    init(
        store: any FileStore, destination: String, channel: ChannelName, sendsParts: Bool, folder: String? = nil,
        writesIndex: Bool = true, report: @escaping EventReporter
    ) {
        self.store = store
        self.folder = folder.map { $0 + "/" } ?? ""
        self.writesIndex = writesIndex
        self.destination = destination
        self.report = report
        sendsPartsWhenLowLatency = sendsParts
        status = PushStatus(destination: destination)
        metrics = PushMetrics(channel: channel, destination: destination)
    }

    public func receive(_ publication: Publication, backlog: SinkBacklog) {
        let timeline = publication.timeline
        if plan == nil {
            plan = DestinationPlan(sendsParts: sendsPartsWhenLowLatency && timeline.isLowLatency)
        }
        metrics.queueDepth.record(backlog.waiting)
        var delay = 0.25
        while true {
            let now = Self.now()
            // Refused: not again before the time set.
            if now < retryAfterRefusal, pause(retryAfterRefusal - now, backlog: backlog) { return }
            let outcome = synchronize(with: timeline, ladder: publication.ladder)
            guard let failed = outcome.stopped else {
                // Segments given up keep the episode open: it ends with a pass that gives up nothing.
                if let givenUp = outcome.givenUp { failing(givenUp) } else { recovered() }
                return
            }
            failing(failed)
            if !failed.isTransient {
                retryAfterRefusal = Self.now() + Self.refusedRetry
                continue
            }
            // A newer publication supersedes this one: try with it instead.
            if pause(delay, backlog: backlog) { return }
            delay = min(delay * 2, 2)
        }
    }

    /// Waits `seconds`, or less when a newer publication comes (true).
    private func pause(_ seconds: Double, backlog: SinkBacklog) -> Bool {
        let start = Self.now()
        if backlog.waitForNewer(seconds: seconds) { return true }
        // The stream has ended: nothing newer will come, but the wait still applies.
        let left = seconds - (Self.now() - start)
        sleepThread(seconds: left)
        return false
    }

    private static func now() -> Double { Double(MediaClock.monotonicNanoseconds()) / 1e9 }

    /// One pass that brings the destination up to `timeline`: the failure that stopped it, if any,
    /// and the failure of a segment it gave up and went on without.
    private func synchronize(
        with timeline: Timeline, ladder: LadderView?
    ) -> (stopped: StoreFailure?, givenUp: StoreFailure?) {
        guard var plan else { return (nil, nil) }
        defer { self.plan = plan }
        plan.forgetGaps(leaving: timeline)
        var givenUp: StoreFailure?
        for name in plan.missing(in: timeline) {
            guard let bytes = timeline.bytes(of: name) else { continue }
            plan.attempted.insert(name)
            do {
                try put(name, bytes: bytes, timeout: Self.mediaTimeout(timeline.configuration.segmentDuration))
                plan.stored.insert(name)
                plan.attempted.remove(name)
                if case .segment(let sequence, _) = name,
                    let segment = timeline.segments.first(where: { $0.sequence == sequence })
                {
                    let closed = Double(segment.programDateTime) / 1000 + segment.duration
                    metrics.segmentLatency.recordSeconds(max(0, Date().timeIntervalSince1970 - closed))
                    status.segmentStored()
                }
            } catch {
                guard case .segment(let sequence, _) = name,
                    let segment = timeline.segments.first(where: { $0.sequence == sequence }),
                    DestinationPlan.isLate(segment, nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
                else { return (error, givenUp) }
                // Too late to matter: players of the destination skip it.
                givenUp = error
                plan.gaps.insert(sequence)
                gapsThisEpisode += 1
                status.segmentGivenUp()
            }
        }
        let listed = timeline.segments.contains(where: \.isListed)
        guard listed || timeline.ended, plan.canList(timeline) else { return (nil, givenUp) }
        let playlist = plan.playlist(for: timeline)
        var playlists: [(MediaFileName, [UInt8])] = [(.mediaPlaylist, Array(playlist.render().utf8))]
        if timeline.hasIFrames { playlists.append((.iFramePlaylist, Array(playlist.iFramePlaylist().render().utf8))) }
        if writesIndex, ladder?.isComplete ?? true {
            let index = ladder?.multivariantPlaylist ?? MultivariantPlaylist(renditions: [timeline])
            playlists.append((.multivariantPlaylist, Array(index.render().utf8)))
        }
        for (name, bytes) in playlists where plan.playlists[name] != bytes {
            do {
                try put(name, bytes: bytes, timeout: 5)
                plan.playlists[name] = bytes
            } catch {
                // An origin that restarted lost what it held: everything the playlist names goes again.
                if case .status(424, _) = error { plan.destinationLostFiles() }
                return (error, givenUp)
            }
        }
        for name in plan.removable(in: timeline) {
            do {
                try store.delete(folder + name.description, timeout: 5)
                plan.stored.remove(name)
                plan.attempted.remove(name)
            } catch {
                // Left for the next pass: a file out of every playlist harms nobody meanwhile.
                metrics.failures.increment()
            }
        }
        return (nil, givenUp)
    }

    /// A media file that takes over twice its duration to send cannot keep up: the link is slower
    /// than the stream, and waiting longer only makes every later segment later.
    static func mediaTimeout(_ segmentDuration: Double) -> Double { max(2, 2 * segmentDuration) }

    private func put(_ name: MediaFileName, bytes: [UInt8], timeout: Double) throws(StoreFailure) {
        let started = Self.now()
        do {
            // The channel's multivariant playlist sits above the renditions' folders.
            try store.put(
                (name == .multivariantPlaylist ? "" : folder) + name.description, bytes: bytes, timeout: timeout)
        } catch {
            metrics.failures.increment()
            throw error
        }
        metrics.uploads.increment()
        metrics.bytes.increment(by: bytes.count)
        metrics.uploadDuration.recordSeconds(Self.now() - started)
    }

    private func failing(_ failed: StoreFailure) {
        if failure == nil {
            report(
                .pushFailed,
                "pushing to \(destination) failed: \(failed); "
                    + (failed.isTransient
                        ? "retrying (viewers of the built-in server are not affected)"
                        : "trying again every \(Int(Self.refusedRetry)) s"))
        }
        failure = failed
        status.set(.failing(failed.description))
    }

    private func recovered() {
        if failure != nil {
            let gaps = gapsThisEpisode
            report(
                .pushRecovered,
                "\(destination) is up to date again"
                    + (gaps > 0
                        ? ": \(gaps) segment\(gaps == 1 ? " was" : "s were") too late and \(gaps == 1 ? "is a gap" : "are gaps") in its playlist"
                        : ""))
        }
        failure = nil
        gapsThisEpisode = 0
        status.set(.upToDate)
    }
}

/// The Prometheus series of one destination.
struct PushMetrics {
    let uploads: Metrics.Counter
    let bytes: Metrics.Counter
    let failures: Metrics.Counter
    let uploadDuration: Metrics.Timer
    let segmentLatency: Metrics.Timer
    let queueDepth: Recorder

    init(channel: ChannelName, destination: String) {
        let dimensions = [("channel", channel.text), ("destination", destination)]
        uploads = Metrics.Counter(label: "onair_push_uploads_total", dimensions: dimensions)
        bytes = Metrics.Counter(label: "onair_push_bytes_total", dimensions: dimensions)
        failures = Metrics.Counter(label: "onair_push_failures_total", dimensions: dimensions)
        uploadDuration = Metrics.Timer(label: "onair_push_upload_seconds", dimensions: dimensions)
        segmentLatency = Metrics.Timer(label: "onair_push_segment_latency_seconds", dimensions: dimensions)
        queueDepth = Recorder(label: "onair_push_queue_depth", dimensions: dimensions, aggregate: false)
    }
}

extension Metrics.Timer {
    func recordSeconds(_ seconds: Double) {
        recordNanoseconds(Int64(seconds * 1e9))
    }
}
