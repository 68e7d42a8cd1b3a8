public import FoundationEssentials
public import HLSModel
public import Runtime

/// Keeps one rendition's rewind window (`--dvr DURATION`) on disk: every segment as the live
/// timeline lists it, under its live name, and the window's playlist (`dvr-media.m3u8`, see
/// ``DVRWindow``) over the last DURATION of them. The server reads both from the folder, and cuts
/// a span of the window (`from=`, `delay=`) from the window's value, posted on the folder's
/// ``DVRFolder/Windows``; the media stays on disk, however long the window is.
///
/// Files are written atomically, segments before the playlist that names them, and a segment is
/// deleted only once a playlist without it is in place and its grace has passed. A segment that
/// cannot be written (a full disk) is listed as a gap; `dvr_failed` is said once, `dvr_recovered`
/// when writing works again. The live stream never waits on any of it.
public final class DVRSink: PublicationSink {
    public let destination: String
    private let folder: URL
    private let store: DiskStore
    private let seconds: Double
    private let report: EventReporter
    // Used by the runner's thread only.
    private var window: DVRWindow?
    /// The live init segment last written.
    private var writtenInit: MediaFileName?
    /// Files out of the window whose grace has passed, deleted once the playlist without them is written.
    private var deletable: [String] = []
    private var failing = false

    /// The window made with the first publication, on the runner's thread (an origin's ingest never
    /// waits on the disk); nil once made.
    private var unmade: DVRFolder?
    /// Where the window written is posted for the server, with the rendition it is of.
    private let board: (windows: DVRFolder.Windows, rendition: String?)?

    /// `folder`: the rendition's folder of the window, made here; `seconds`: how far back viewers may go.
    public init(folder: URL, seconds: Double, report: @escaping EventReporter) throws {
        store = DiskStore(root: folder)
        try store.makeFolder()
        self.folder = folder
        self.seconds = seconds
        self.report = report
        destination = folder.path
        board = nil
    }

    /// One rendition (`nil`: the channel's only one) of `window`, whose folders are made with the
    /// first publication.
    public init(window: DVRFolder, rendition: String?, report: @escaping EventReporter) {
        folder = window.folder(of: rendition)
        store = DiskStore(root: folder)
        seconds = window.seconds
        self.report = report
        destination = folder.path
        unmade = window
        board = (window.windows, rendition)
    }

    public func receive(_ publication: Publication, backlog: SinkBacklog) {
        let timeline = publication.timeline
        var problem: (any Error)?
        if let window = unmade {
            do {
                try window.prepare()
                try store.makeFolder()
                unmade = nil
            } catch {
                problem = error
            }
        }
        var window =
            self.window
            ?? DVRWindow(
                seconds: seconds, version: timeline.configuration.format.playlistVersion,
                targetDuration: timeline.configuration.targetDuration,
                discontinuitySequence: timeline.discontinuitySequence)
        // Taken out while it changes, so that its list is changed in place, not copied at every segment.
        self.window = nil
        var changed = false
        // Listed or only still downloadable: a sink that fell behind takes what the timeline still has.
        for segment in timeline.segments where segment.sequence > (window.lastSequence ?? .min) {
            var file: String?
            if !segment.gap {
                do {
                    try writeInit(of: segment, from: timeline)
                    try store.put(segment.name.description, bytes: segment.bytes)
                    file = segment.name.description
                } catch {
                    problem = problem ?? error
                }
            }
            deletable += window.append(
                sequence: segment.sequence, file: file, duration: segment.duration,
                programDateTime: segment.programDateTime, discontinuity: segment.discontinuity,
                map: segment.initSegment?.description, format: timeline.configuration.format,
                missingDuration: timeline.configuration.segmentDuration, iFrame: segment.iFrame)
            changed = true
        }
        if window.keep(dateRanges: timeline.dateRanges) { changed = true }
        if timeline.ended, !window.isEnded {
            window.end()
            changed = true
        }
        self.window = window
        guard changed, !window.isEmpty else { return }
        do {
            let playlist = window.playlist
            try store.put(MediaFileName.dvrMediaPlaylist.description, bytes: Array(playlist.render().utf8))
            if timeline.hasIFrames {
                try store.put(
                    MediaFileName.dvrIFramePlaylist.description, bytes: Array(playlist.iFramePlaylist().render().utf8))
            }
            board?.windows.post(playlist, hasIFrames: timeline.hasIFrames, rendition: board?.rendition)
            for file in deletable { try? store.delete(file) }
            deletable.removeAll()
        } catch {
            problem = problem ?? error
        }
        if let problem, !failing {
            failing = true
            report(
                .dvrFailed,
                "the rewind window in \(folder.path) cannot be written (\(problem)): the live stream goes on, and "
                    + "viewers cannot rewind to what is missing")
        } else if problem == nil, failing {
            failing = false
            report(.dvrRecovered, "the rewind window in \(folder.path) can be written again")
        }
    }

    /// The segment's init segment, when it is not the one written last.
    private func writeInit(of segment: Timeline.Segment, from timeline: Timeline) throws {
        guard let name = segment.initSegment, name != writtenInit, let bytes = timeline.initSegments[name] else {
            return
        }
        try store.put(name.description, bytes: bytes)
        writtenInit = name
    }
}
