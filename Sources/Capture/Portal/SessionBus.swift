internal import CSDBus
import FoundationEssentials

/// A value read from or written into a D-Bus message: what the ScreenCast portal's calls carry.
enum BusValue: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case uint32(UInt32)
    case int32(Int32)
    case bool(Bool)
    case array([BusValue])
    case structure([BusValue])
    case dictionary([String: BusValue])
    /// A type this client has no use for (skipped while reading).
    case other

    var string: String? {
        switch self {
        case .string(let text), .objectPath(let text): text
        default: nil
        }
    }

    var uint32: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    var int32: Int32? {
        if case .int32(let value) = self { return value }
        return nil
    }
}

/// A connection to the user's session bus (systemd's sd-bus), used from one thread: method
/// calls, and waiting for one signal on one object.
final class SessionBus {
    private var bus: OpaquePointer?

    /// Nil when there is no session bus to connect to.
    init?() {
        guard sd_bus_open_user(&bus) >= 0 else { return nil }
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// This connection's unique name (`:1.42`).
    var uniqueName: String {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return "" }
        return String(cString: name)
    }

    /// Whether a well-known name has an owner on the bus.
    func hasOwner(_ name: String) -> Bool {
        let reply = try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)])
        return reply?.first == .bool(true)
    }

    /// Calls a method and reads its reply's values.
    func call(
        destination: String, path: String, interface: String, member: String, arguments: [BusValue],
        timeout: Double = 10
    ) throws -> [BusValue] {
        try withReply(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeout: timeout
        ) { reply in try Self.readAll(reply) }
    }

    /// Calls a method and hands its reply to `read` (for values `call` does not read, a file descriptor).
    func withReply<T>(
        destination: String, path: String, interface: String, member: String, arguments: [BusValue],
        timeout: Double = 10, read: (OpaquePointer) throws -> T
    ) throws -> T {
        var message: OpaquePointer?
        try check(sd_bus_message_new_method_call(bus, &message, destination, path, interface, member), member)
        defer { sd_bus_message_unref(message) }
        for argument in arguments { try Self.append(argument, to: message!) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus, message, UInt64(timeout * 1e6), &error, &reply)
        guard result >= 0, let reply else {
            throw CaptureError.busCall(
                member, name: error.name.map { String(cString: $0) } ?? "",
                message: error.message.map { String(cString: $0) } ?? String(cString: strerror(-result)))
        }
        defer { sd_bus_message_unref(reply) }
        return try read(reply)
    }

    /// Waits for a signal; `subscribe` is called once the match is in place (so a signal the
    /// call it makes causes is not missed). The signal's values; nil when `timeout` passed first.
    func waitForSignal(
        path: String, interface: String, member: String, timeout: Double, subscribe: () throws -> Void
    ) throws -> [BusValue]? {
        final class Box { var values: [BusValue]? }
        let box = Box()
        var slot: OpaquePointer?
        let handler: sd_bus_message_handler_t = { message, userdata, _ in
            let box = Unmanaged<Box>.fromOpaque(userdata!).takeUnretainedValue()
            box.values = (try? SessionBus.readAll(message!)) ?? []
            return 0
        }
        try check(
            sd_bus_match_signal(
                bus, &slot, nil, path, interface, member, handler, Unmanaged.passUnretained(box).toOpaque()),
            "watching \(member)")
        defer { sd_bus_slot_unref(slot) }
        try subscribe()
        let deadline = Date().addingTimeInterval(timeout)
        while box.values == nil {
            let processed = sd_bus_process(bus, nil)
            try check(processed, "reading the bus")
            if processed > 0 { continue }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            try check(sd_bus_wait(bus, UInt64(left * 1e6)), "waiting on the bus")
        }
        return box.values
    }

    private func check(_ result: Int32, _ what: String) throws {
        guard result >= 0 else {
            throw CaptureError.busCall(what, name: "", message: String(cString: strerror(-result)))
        }
    }

    // MARK: Writing

    /// The D-Bus signature of a value written (dictionaries are `a{sv}`, their values variants).
    private static func signature(of value: BusValue) -> String {
        switch value {
        case .string: "s"
        case .objectPath: "o"
        case .uint32: "u"
        case .int32: "i"
        case .bool: "b"
        case .dictionary: "a{sv}"
        case .array(let items): "a" + (items.first.map(signature) ?? "v")
        case .structure(let items): "(" + items.map(signature).joined() + ")"
        case .other: "v"
        }
    }

    static func append(_ value: BusValue, to message: OpaquePointer) throws {
        func ok(_ result: Int32) throws {
            guard result >= 0 else {
                throw CaptureError.busCall("writing a message", name: "", message: String(cString: strerror(-result)))
            }
        }
        switch value {
        case .string(let text):
            try ok(text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) })
        case .objectPath(let text):
            try ok(text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) })
        case .uint32(var number):
            try ok(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &number))
        case .int32(var number):
            try ok(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &number))
        case .bool(let flag):
            var number: Int32 = flag ? 1 : 0
            try ok(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &number))
        case .dictionary(let entries):
            try ok(sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}"))
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                try ok(sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv"))
                try append(.string(key), to: message)
                try ok(sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), signature(of: item)))
                try append(item, to: message)
                try ok(sd_bus_message_close_container(message))
                try ok(sd_bus_message_close_container(message))
            }
            try ok(sd_bus_message_close_container(message))
        case .array(let items):
            try ok(
                sd_bus_message_open_container(
                    message, CChar(UInt8(ascii: "a")), String(signature(of: value).dropFirst())))
            for item in items { try append(item, to: message) }
            try ok(sd_bus_message_close_container(message))
        case .structure(let items):
            let inner = String(signature(of: value).dropFirst().dropLast())
            try ok(sd_bus_message_open_container(message, CChar(UInt8(ascii: "r")), inner))
            for item in items { try append(item, to: message) }
            try ok(sd_bus_message_close_container(message))
        case .other:
            throw CaptureError.busCall("writing a message", name: "", message: "a value of no known type")
        }
    }

    // MARK: Reading

    /// Every value left at the message's current level.
    static func readAll(_ message: OpaquePointer) throws -> [BusValue] {
        var values: [BusValue] = []
        while let value = try read(message) { values.append(value) }
        return values
    }

    /// The next value at the current level; nil at its end.
    private static func read(_ message: OpaquePointer) throws -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contents)
        guard peeked > 0 else {
            if peeked < 0 {
                throw CaptureError.busCall("reading a message", name: "", message: String(cString: strerror(-peeked)))
            }
            return nil
        }
        let code = UInt8(bitPattern: type)
        switch code {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var text: UnsafePointer<CChar>?
            _ = sd_bus_message_read_basic(message, type, &text)
            let string = text.map { String(cString: $0) } ?? ""
            return code == UInt8(ascii: "o") ? .objectPath(string) : .string(string)
        case UInt8(ascii: "u"):
            var number: UInt32 = 0
            _ = sd_bus_message_read_basic(message, type, &number)
            return .uint32(number)
        case UInt8(ascii: "i"):
            var number: Int32 = 0
            _ = sd_bus_message_read_basic(message, type, &number)
            return .int32(number)
        case UInt8(ascii: "b"):
            var number: Int32 = 0
            _ = sd_bus_message_read_basic(message, type, &number)
            return .bool(number != 0)
        case UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "v"), UInt8(ascii: "e"):
            let inner = contents.map { String(cString: $0) } ?? ""
            guard sd_bus_message_enter_container(message, type, inner) > 0 else { return .other }
            defer { sd_bus_message_exit_container(message) }
            switch code {
            case UInt8(ascii: "v"):
                return try read(message) ?? .other
            case UInt8(ascii: "a") where inner == "{sv}":
                var entries: [String: BusValue] = [:]
                for entry in try readAll(message) {
                    if case .structure(let pair) = entry, pair.count == 2, let key = pair[0].string {
                        entries[key] = pair[1]
                    }
                }
                return .dictionary(entries)
            case UInt8(ascii: "a"):
                return .array(try readAll(message))
            default:
                return .structure(try readAll(message))
            }
        default:
            let skip = String(UnicodeScalar(code))
            _ = sd_bus_message_skip(message, skip)
            return .other
        }
    }
}

extension CaptureError {
    /// A session-bus call that failed: what was asked, and the bus's error name and message.
    static func busCall(_ what: String, name: String, message: String) -> Self {
        .portal("\(what): \(message)" + (name.isEmpty ? "" : " (\(name))"))
    }
}
