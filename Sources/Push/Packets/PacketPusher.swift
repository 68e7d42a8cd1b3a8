import FoundationEssentials
public import HLSModel
public import Media
import Metrics
public import Runtime

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
    public init(
        link: PacketLink, channel: ChannelName, streams: [StreamDescription], trust: PushTrust,
        report: @escaping EventReporter
    ) {
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
            link: link, trust: trust, streams: streams, queue: queue, abort: abort,
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

/// The sender's thread: connect, send, reconnect. Sent to that thread, used by it only.
private final class PacketConnection {
    let link: PacketLink
    let trust: PushTrust
    let destination: String
    let streams: [StreamDescription]
    let queue: BoundedQueue<EncodedPacket>
    let abort: Flag
    let status: PushStatus
    let report: EventReporter
    let bytes: Metrics.Counter
    let failures: Metrics.Counter
    private var muxer: Muxer?
    private var failure: String?
    private var failedAt = 0.0

    init(
        link: PacketLink, trust: PushTrust, streams: [StreamDescription], queue: BoundedQueue<EncodedPacket>,
        abort: Flag, status: PushStatus, report: @escaping EventReporter, bytes: Metrics.Counter,
        failures: Metrics.Counter
    ) {
        self.link = link
        self.trust = trust
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
            if muxer == nil {
                do {
                    try connect()
                    delay = 0.5
                    recovered()
                } catch {
                    failed("\(error)")
                    waitingForKeyframe = true
                    // Packets queued meanwhile are dropped by the queue itself; wait before trying again.
                    if abort.isSet { break }
                    sleepThread(seconds: delay)
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
        // Give up a connection that stalls for 5 s; reconnecting is better than waiting forever.
        var options = [(name: "rw_timeout", value: "5000000")] + link.options.map { ($0.name, $0.value) }
        if link.verifiesTLS {
            // libavformat's TLS verifies the server's certificate only when asked.
            options.append(("tls_verify", "1"))
            if let authorities = trust.authorities { options.append(("ca_file", authorities)) }
        }
        let muxer = try Muxer(
            format: link.format, to: .address(link.url.absoluteString, options: options, interrupt: abort))
        for stream in streams { try muxer.addStream(for: stream) }
        try muxer.open()
        self.muxer = muxer
    }

    private func write(_ packet: EncodedPacket) throws(LibavError) {
        guard let muxer else { return }
        try muxer.write(packet, interleaved: true)
        bytes.increment(by: packet.size)
    }

    /// Drops the connection; with `trailer`, after ending the container as it should.
    private func disconnect(trailer: Bool) {
        if trailer { try? muxer?.finish() }
        muxer = nil
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
