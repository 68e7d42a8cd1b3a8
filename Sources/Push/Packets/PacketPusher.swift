public import HLSModel
import Runtime
internal import CFFmpeg
import Foundation
public import Media
import Metrics

/// Sends the broadcast's own H.264/AAC packets over a ``PacketLink`` with libavformat (FLV over
/// RTMP, MPEG-TS over SRT). No second encode: the packets are the ones HLS is cut from.
///
/// It runs on a thread of its own behind a bounded queue that drops the oldest packets, so the
/// encoders never wait for the network. After a drop or a lost connection it resumes on the next
/// keyframe; a lost connection is reconnected with backoff, and each episode is said once.
public final class PacketPusher: PacketSink {
    public let destination: String
    public let status: PushStatus
    private let queue: BoundedQueue<EncodedPacket>
    private let thread: WorkerThread
    /// Set to make a blocked network call give up (a stop that cannot wait).
    private let abort: Flag

    /// Starts the sender's thread. `streams`: the tracks, as the encoders describe them.
    public init(link: PacketLink, channel: ChannelName, streams: [StreamDescription], report: @escaping EventReporter) {
        let destination = link.description
        self.destination = destination
        let status = PushStatus(destination: destination)
        self.status = status
        // About ten seconds of a 2.5 Mb/s stream: the packets are shared with HLS, not copied.
        let queue = BoundedQueue<EncodedPacket>(capacity: 1024, policy: .dropOldest)
        self.queue = queue
        let abort = Flag()
        self.abort = abort
        let dimensions = [("channel", channel.text), ("destination", destination)]
        let connection = PacketConnection(
            link: link, streams: streams, queue: queue, abort: abort,
            status: status, report: report,
            bytes: Metrics.Counter(label: "onair_push_bytes_total", dimensions: dimensions),
            failures: Metrics.Counter(label: "onair_push_failures_total", dimensions: dimensions))
        thread = WorkerThread(name: "onair-" + (link.url.scheme ?? "push")) { connection.run() }
    }

    /// Hands a packet over without waiting; the oldest queued one goes when the queue is full.
    public func send(_ packet: EncodedPacket) {
        queue.push(packet)
    }

    /// Ends the stream: what is queued is sent and the container's trailer written. Returns false
    /// when that took longer than `timeout`; the connection is then abandoned.
    @discardableResult
    public func finish(within timeout: Duration) -> Bool {
        queue.close()
        if thread.join(within: timeout) { return true }
        abort.set()
        return false
    }
}

/// The sender's thread: connect, send, reconnect. Used by that thread only (unchecked: it holds a
/// libavformat context, which is not Sendable).
// Unchecked Sendable: a C handle (AVFormatContext), used by the sender's thread only.
private final class PacketConnection: @unchecked Sendable {
    let link: PacketLink
    let destination: String
    let streams: [StreamDescription]
    let queue: BoundedQueue<EncodedPacket>
    let abort: Flag
    let status: PushStatus
    let report: EventReporter
    let bytes: Metrics.Counter
    let failures: Metrics.Counter
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var indices: [TrackID: (index: Int32, timeBase: AVRational)] = [:]
    private var failure: String?
    private var failedAt = 0.0

    init(
        link: PacketLink, streams: [StreamDescription], queue: BoundedQueue<EncodedPacket>,
        abort: Flag, status: PushStatus, report: @escaping EventReporter, bytes: Metrics.Counter,
        failures: Metrics.Counter
    ) {
        self.link = link
        self.destination = link.description
        self.streams = streams
        self.queue = queue
        self.abort = abort
        self.status = status
        self.report = report
        self.bytes = bytes
        self.failures = failures
    }

    func run() {
        var delay = 0.5
        var dropped = queue.droppedCount
        // Sending starts, and starts again after a drop or a reconnection, on a video keyframe.
        var waitingForKeyframe = true
        while let packet = queue.pop() {
            if queue.droppedCount != dropped {
                dropped = queue.droppedCount
                waitingForKeyframe = true
            }
            if waitingForKeyframe {
                guard packet.kind == .video, packet.isKeyframe else { continue }
                waitingForKeyframe = false
            }
            if context == nil {
                do {
                    try connect()
                    delay = 0.5
                    recovered()
                } catch {
                    failed("\(error)")
                    waitingForKeyframe = true
                    // Packets queued meanwhile are dropped by the queue itself; wait before trying again.
                    if abort.isSet { break }
                    Thread.sleep(forTimeInterval: delay)
                    delay = min(delay * 2, 10)
                    continue
                }
            }
            do {
                try write(packet)
            } catch {
                failed("\(error)")
                disconnect(trailer: false)
                waitingForKeyframe = true
            }
        }
        disconnect(trailer: true)
    }

    private func connect() throws(LibavError) {
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        let url = link.url.absoluteString
        try check(
            avformat_alloc_output_context2(&allocated, nil, link.format, url), "avformat_alloc_output_context2")
        let context = try LibavAllocation(allocated, "avformat_alloc_output_context2") { avformat_free_context($0) }
        var created: [TrackID: Int32] = [:]
        for stream in streams {
            let made = try checkAllocation(avformat_new_stream(context.pointer, nil), "avformat_new_stream")
            try check(avcodec_parameters_copy(made.pointee.codecpar, stream.parameters), "avcodec_parameters_copy")
            made.pointee.codecpar.pointee.codec_tag = 0
            created[stream.track] = made.pointee.index
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        // Give up a connection that stalls for 5 s; reconnecting is better than waiting forever.
        av_dict_set(&options, "rw_timeout", "5000000", 0)
        for option in link.options { av_dict_set(&options, option.name, option.value, 0) }
        if link.verifiesTLS {
            // libavformat's TLS verifies the server's certificate only when asked.
            av_dict_set(&options, "tls_verify", "1", 0)
            if let authorities = PushTrust.authorities { av_dict_set(&options, "ca_file", authorities, 0) }
        }
        var interrupt = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<Flag>.fromOpaque(opaque).takeUnretainedValue().isSet ? 1 : 0
            }, opaque: Unmanaged.passUnretained(abort).toOpaque())
        try check(avio_open2(&context.pointer.pointee.pb, url, AVIO_FLAG_WRITE, &interrupt, &options), "connecting")
        do {
            try check(avformat_write_header(context.pointer, nil), "sending the \(link.format) header")
        } catch {
            avio_closep(&context.pointer.pointee.pb)
            throw error
        }
        indices = created.mapValues { ($0, context.pointer.pointee.streams[Int($0)]!.pointee.time_base) }
        self.context = context.handOver()
    }

    private func write(_ packet: EncodedPacket) throws(LibavError) {
        guard let context, let stream = indices[packet.track] else { return }
        let copy = try LibavAllocation(av_packet_clone(packet.packet), "av_packet_clone") { av_packet_free(&$0) }
        copy.pointer.pointee.stream_index = stream.index
        av_packet_rescale_ts(
            copy.pointer, AVRational(num: packet.timeBase.numerator, den: packet.timeBase.denominator), stream.timeBase)
        let size = packet.size
        try check(av_interleaved_write_frame(context, copy.pointer), "sending")
        bytes.increment(by: size)
    }

    private func disconnect(trailer: Bool) {
        guard let context else { return }
        if trailer { av_write_trailer(context) }
        avio_closep(&context.pointee.pb)
        avformat_free_context(context)
        self.context = nil
    }

    private func failed(_ reason: String) {
        failures.increment()
        status.set(.failing(reason))
        guard failure == nil else { return }
        failure = reason
        failedAt = Double(MediaClock.monotonicNanoseconds()) / 1e9
        report(.pushFailed, "pushing to \(destination) failed: \(reason); reconnecting")
    }

    private func recovered() {
        status.set(.upToDate)
        guard failure != nil else { return }
        let seconds = Double(MediaClock.monotonicNanoseconds()) / 1e9 - failedAt
        report(
            .pushRecovered,
            "\(destination) is connected again after \(String(fixed: seconds, decimals: 1)) s: resumed on a keyframe")
        failure = nil
    }
}
