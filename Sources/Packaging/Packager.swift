import HLSModel
import Media

/// Muxes encoded packets into fragmented MP4 or MPEG-TS in memory, one fragment at a time.
final class Packager {
    let format: ContainerFormat
    private let muxer: Muxer
    /// The init segment (ftyp + moov) for fMP4; empty for TS.
    let initSegment: [UInt8]
    /// Fragments ended inside the open one's part (one per picture), handed over with it.
    private var carried: [UInt8] = []

    /// Opens the muxer over `streams` and writes the header.
    init(format: ContainerFormat, streams: [StreamDescription]) throws {
        self.format = format
        muxer = try Muxer(format: format == .fmp4 ? "mp4" : "mpegts", to: .memory)
        for stream in streams { try muxer.addStream(for: stream) }
        switch format {
        case .fmp4:
            // Fragments are cut by us (frag_custom); the moov is empty so the init segment
            // stands alone; no trailer, since a live stream has no end index.
            try muxer.open(options: [("movflags", "+frag_custom+empty_moov+default_base_moof+skip_trailer")])
        case .ts:
            try muxer.open(options: [("mpegts_flags", "+resend_headers")])
        case .webVTT:
            preconditionFailure("captions are written by CaptionPackager, not muxed")
        }
        // TS has no init segment: what its header wrote opens the first fragment.
        initSegment = format == .fmp4 ? muxer.take() : []
    }

    /// Writes one packet into the open fragment; `duration` (in the packet's time base) replaces
    /// its own, for a picture shown until the next one however many slots lie between.
    func write(_ packet: EncodedPacket, duration: Int64? = nil) throws {
        try muxer.write(packet, duration: duration, interleaved: false)
    }

    /// Ends the fragment written so far (fMP4: one picture) without ending the part: its bytes go
    /// with what the next cut returns.
    func endFragment() throws {
        try muxer.flushFragment()
        carried += muxer.take()
    }

    /// Ends the open fragment and returns its bytes. For TS, when a segment starts next,
    /// PAT and PMT are written again at its head.
    func cutFragment(segmentStartsNext: Bool) throws -> [UInt8] {
        try muxer.flushFragment()
        if format == .ts, segmentStartsNext { try muxer.setMuxerOption("mpegts_flags", "+resend_headers") }
        return takeCarried() + muxer.take()
    }

    /// Ends the stream and returns the last bytes.
    func finish() throws -> [UInt8] {
        try muxer.finish()
        return takeCarried() + muxer.take()
    }

    private func takeCarried() -> [UInt8] {
        defer { carried = [] }
        return carried
    }
}
