internal import CPipeWire
internal import CSDBus
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

/// The desktop's `org.freedesktop.portal.ScreenCast` on the session bus: what it offers, and the
/// handshake that ends with a PipeWire stream of what the user chose to share
/// (CreateSession → SelectSources → Start → OpenPipeWireRemote). Used on one thread.
public enum ScreenCastPortal {
    static let service = "org.freedesktop.portal.Desktop"
    static let objectPath = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.ScreenCast"

    /// What to ask the user to share.
    public enum Kind: String, Sendable {
        case monitor = "screen"
        case window

        var sourceType: UInt32 { self == .monitor ? 1 : 2 }
    }

    /// What the portal offers (its properties).
    public struct Offer: Sendable, Equatable {
        public var version: UInt32
        public var sourceTypes: UInt32
        public var cursorModes: UInt32

        public var monitors: Bool { sourceTypes & 1 != 0 }
        public var windows: Bool { sourceTypes & 2 != 0 }
        public var embeddedCursor: Bool { cursorModes & 2 != 0 }
        public var restoresSessions: Bool { version >= 4 }

        /// `monitors, windows; pointer drawn in; remembers the choice`
        public var summary: String {
            let kinds = [monitors ? "screens" : nil, windows ? "windows" : nil].compactMap { $0 }
            return (kinds.isEmpty ? "nothing to share" : kinds.joined(separator: " and "))
                + (embeddedCursor ? ", the pointer drawn in" : ", no pointer")
                + (restoresSessions ? ", remembers the choice for unattended restarts" : "")
                + " (ScreenCast version \(version))"
        }
    }

    /// Whether a session bus and a ScreenCast portal on it can be reached, and what it offers.
    public static func probe() -> Result<Offer, CaptureError> {
        guard let bus = SessionBus() else { return .failure(.noSessionBus) }
        return offer(on: bus)
    }

    private static func offer(on bus: SessionBus) -> Result<Offer, CaptureError> {
        guard bus.hasOwner(service),
            let reply = try? bus.call(
                destination: service, path: objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", arguments: [.string(interface)]),
            case .dictionary(let properties)? = reply.first
        else { return .failure(.noPortal) }
        return .success(
            Offer(
                version: properties["version"]?.uint32 ?? 1,
                sourceTypes: properties["AvailableSourceTypes"]?.uint32 ?? 1,
                cursorModes: properties["AvailableCursorModes"]?.uint32 ?? 1))
    }

    /// Asks the user (or, with a remembered choice, nobody) to share a screen or a window, and
    /// opens its PipeWire stream with an agreed picture format. `notice` says what happens while
    /// the desktop may be showing its dialog. Throws with what to do when it cannot start.
    public static func open(
        _ kind: Kind, cursor: Bool, remembered: RestoreTokenStore?, answerTimeout: Double = 300,
        notice: (String) -> Void
    ) throws(CaptureError) -> PortalCapture {
        guard let bus = SessionBus() else { throw .noSessionBus }
        let offer: Offer
        switch Self.offer(on: bus) {
        case .success(let found): offer = found
        case .failure(let error): throw error
        }
        guard kind == .monitor ? offer.monitors : offer.windows else { throw .portalOffersNo(kind.rawValue + "s") }
        let handshake = Handshake(bus: bus)
        do {
            let created = try handshake.request(
                "CreateSession", [], ["session_handle_token": .string(handshake.token())])
            guard let session = created["session_handle"]?.string else {
                throw CaptureError.portal("the portal's CreateSession gave no session")
            }
            var options: [String: BusValue] = ["types": .uint32(kind.sourceType), "multiple": .bool(false)]
            if offer.version >= 2 {
                options["cursor_mode"] = .uint32(cursor && offer.embeddedCursor ? 2 : 1)
            }
            let token = offer.restoresSessions ? remembered?.load(kind) : nil
            if offer.restoresSessions {
                options["persist_mode"] = .uint32(2)
                if let token { options["restore_token"] = .string(token) }
            }
            // Said before SelectSources: some desktops (the wlroots portal) show their dialog there,
            // others (GNOME, KDE) at Start.
            notice(
                token == nil
                    ? "asking the desktop to share a \(kind == .monitor ? "screen" : "window"): answer its dialog"
                    : "asking the desktop to share the \(kind == .monitor ? "screen" : "window") chosen last time")
            _ = try handshake.request("SelectSources", [.objectPath(session)], options, timeout: answerTimeout)
            let started = try handshake.request(
                "Start", [.objectPath(session), .string("")], [:], timeout: answerTimeout)
            guard case .array(let streams)? = started["streams"], case .structure(let first)? = streams.first,
                let node = first.first?.uint32
            else { throw CaptureError.portal("the portal started no stream") }
            if let fresh = started["restore_token"]?.string { remembered?.save(fresh, for: kind) }
            var size: (Int, Int)?
            if first.count > 1, case .dictionary(let properties) = first[1],
                case .structure(let pair)? = properties["size"], pair.count == 2,
                let width = pair[0].int32, let height = pair[1].int32
            {
                size = (Int(width), Int(height))
            }
            let fd = try bus.withReply(
                destination: service, path: objectPath, interface: interface, member: "OpenPipeWireRemote",
                arguments: [.objectPath(session), .dictionary([:])]
            ) { reply in CSDBus_readDuplicatedFD(reply) }
            guard fd >= 0 else { throw CaptureError.portal("the portal gave no PipeWire connection") }
            return try PortalCapture(bus: bus, session: session, fd: fd, node: node, size: size, kind: kind)
        } catch let error as CaptureError {
            throw error
        } catch {
            throw .portal("\(error)")
        }
    }

    /// The portal's requests: each answered by a `Response` signal on its own object.
    private final class Handshake {
        let bus: SessionBus
        private var count = 0

        init(bus: SessionBus) { self.bus = bus }

        func token() -> String {
            count += 1
            return "onair\(getpid())_\(count)"
        }

        func request(
            _ method: String, _ arguments: [BusValue], _ options: [String: BusValue], timeout: Double = 30
        ) throws -> [String: BusValue] {
            let handle = token()
            let sender = bus.uniqueName.dropFirst().replacing(".", with: "_")
            let path = "\(objectPath)/request/\(sender)/\(handle)"
            var options = options
            options["handle_token"] = .string(handle)
            let response = try bus.waitForSignal(
                path: path, interface: "org.freedesktop.portal.Request", member: "Response", timeout: timeout
            ) {
                _ = try bus.call(
                    destination: service, path: objectPath, interface: interface, member: method,
                    arguments: arguments + [.dictionary(options)])
            }
            guard let response else {
                throw CaptureError.portal("the portal did not answer \(method) within \(Int(timeout)) s")
            }
            switch response.first?.uint32 {
            case 0:
                if case .dictionary(let results)? = response.dropFirst().first { return results }
                return [:]
            case 1: throw CaptureError.portalRefused
            default:
                throw CaptureError.portal("the portal could not \(method) (response \(response.first?.uint32 ?? 2))")
            }
        }
    }
}

/// A screen-cast session the user agreed to, and its PipeWire stream. The session lasts as long
/// as this object (the bus connection is its owner); the stream delivers B,G,R,x pictures.
// Unchecked Sendable: a C handle (the sd-bus connection and PipeWire stream); its ring has its own lock.
public final class PortalCapture: @unchecked Sendable {
    private let bus: SessionBus
    let session: String
    let stream: UnsafeMutablePointer<CPW_capture>
    public let kind: ScreenCastPortal.Kind
    /// The size of what is shared, as the stream agreed it.
    public let width: Int
    public let height: Int

    init(bus: SessionBus, session: String, fd: Int32, node: UInt32, size: (Int, Int)?, kind: ScreenCastPortal.Kind)
        throws(CaptureError)
    {
        var error = [CChar](repeating: 0, count: 256)
        guard let stream = CPW_open(fd, node, &error, error.count) else {
            throw .portal(error.cText)
        }
        // A format is agreed without any picture being sent: a still screen does not hold this up.
        guard CPW_waitFormat(stream, 5000) == 1 else {
            _ = CPW_status(stream, &error, error.count)
            CPW_close(stream)
            throw .portalNoFormat(error.cText)
        }
        var width: Int32 = 0, height: Int32 = 0
        CPW_size(stream, &width, &height)
        self.bus = bus
        self.session = session
        self.stream = stream
        self.kind = kind
        self.width = Int(width > 0 ? width : Int32(size?.0 ?? 0))
        self.height = Int(height > 0 ? height : Int32(size?.1 ?? 0))
    }

    private var closed = false

    /// Closes the PipeWire stream and the portal session (the desktop stops showing it is shared);
    /// once, on the capture thread as capture ends.
    public func close() {
        guard !closed else { return }
        closed = true
        CPW_close(stream)
        _ = try? bus.call(
            destination: ScreenCastPortal.service, path: session, interface: "org.freedesktop.portal.Session",
            member: "Close", arguments: [], timeout: 2)
    }

    deinit {
        close()
    }
}
