import HLSModel
import Runtime
import Synchronization

/// What an origin's channels may hold (`--channel-memory`, `--origin-memory`): each channel's
/// pushed files and live windows as it last counted them, and the bodies on their way in, counted
/// from their declared length before they arrive. A media file or a body that would take a channel
/// or the origin past its budget is refused (HTTP 507).
final class MemoryBudget: Sendable {
    /// Bytes one channel may hold, every rendition's pushed files and live windows together.
    let perChannel: Int
    /// Bytes every channel may hold together.
    let total: Int
    /// Bytes every channel holds together, as each last counted, and the bodies on their way in.
    private let held = Atomic<Int>(0)
    /// Bytes of bodies on their way in, by channel.
    private let inFlight = Mutex<[ChannelName: Int]>([:])

    init(perChannel: Int, total: Int) {
        self.perChannel = perChannel
        self.total = total
    }

    /// Bytes held now: pushed files, live windows and bodies on their way in.
    var used: Int { held.load(ordering: .relaxed) }

    /// Counts what `channel` holds now, and the origin with it.
    func recount(_ channel: inout OriginChannel) {
        let bytes = channel.counted()
        held.add(bytes - channel.bytes, ordering: .relaxed)
        channel.bytes = bytes
    }

    /// Gives back what a channel let go of held.
    func release(_ channel: inout OriginChannel) {
        held.subtract(channel.bytes, ordering: .relaxed)
        channel.bytes = 0
    }

    /// Counts `count` more bytes of a body on its way to channel `name`, which holds `channelHolds`;
    /// refused when either budget has no room. ``arrived(_:into:)`` gives them back once the body is whole.
    func arriving(_ count: Int, into name: ChannelName, channelHolds: Int) throws(IngestAssembler.Refusal) {
        try inFlight.withLock { inFlight throws(IngestAssembler.Refusal) in
            let arriving = inFlight[name, default: 0]
            try check(count, channelHolds: channelHolds + arriving, name: name)
            inFlight[name] = arriving + count
            held.add(count, ordering: .relaxed)
        }
    }

    /// Gives back what ``arriving(_:into:channelHolds:)`` counted of a body.
    func arrived(_ count: Int, into name: ChannelName) {
        inFlight.withLock { inFlight in
            let left = inFlight[name, default: 0] - count
            inFlight[name] = left > 0 ? left : nil
        }
        held.subtract(count, ordering: .relaxed)
    }

    /// Refuses a media file of `incoming` bytes that channel `name`, which holds `channelHolds`
    /// besides its bodies on their way in, or the origin has no room for.
    func checkRoom(for incoming: Int, channelHolds: Int, name: ChannelName) throws(IngestAssembler.Refusal) {
        let arriving = inFlight.withLock { $0[name, default: 0] }
        try check(incoming, channelHolds: channelHolds + arriving, name: name)
    }

    private func check(_ incoming: Int, channelHolds: Int, name: ChannelName) throws(IngestAssembler.Refusal) {
        func megabytes(_ bytes: Int) -> String { String(fixed: Double(bytes) / 1e6, decimals: 1) + " MB" }
        guard channelHolds + incoming <= perChannel else {
            throw .full(
                "channel \(name) holds \(megabytes(channelHolds)) and may hold \(megabytes(perChannel)) "
                    + "(--channel-memory): push the playlist that lists its files, or fewer renditions")
        }
        let used = held.load(ordering: .relaxed)
        guard used + incoming <= total else {
            throw .full("this origin holds \(megabytes(used)) of its \(megabytes(total)) (--origin-memory)")
        }
    }
}
