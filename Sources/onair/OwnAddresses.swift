import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

/// Whether a destination's host is this machine's server, compared by the addresses names resolve
/// to, not by how they are spelled: `2130706433`, `0x7f.1`, `0`, `[::ffff:127.0.0.1]`,
/// `[0:0:0:0:0:0:0:1]` and the host's own name all reach a server listening on 127.0.0.1 or on
/// every address.
enum OwnAddresses {
    /// An address as bytes: 4 for IPv4, 16 for IPv6 (an IPv4-mapped one is taken as its IPv4).
    typealias Address = [UInt8]

    /// True when `destination` resolves to an address the server bound to `serverHost` answers on.
    static func reach(_ destination: String, server serverHost: String) -> Bool {
        let targets = resolve(destination)
        guard !targets.isEmpty else { return false }
        let bound = resolve(serverHost)
        let wildcard = bound.isEmpty || bound.contains(where: isUnspecified)
        let own = wildcard ? Set(interfaceAddresses()) : Set(bound)
        return targets.contains { target in
            // A connection to the unspecified address (`0`, `[::]`) reaches this machine's loopback.
            let reached = isUnspecified(target) ? loopback(like: target) : target
            return own.contains(reached) || (wildcard && isLoopback(reached))
        }
    }

    private static func loopback(like address: Address) -> Address {
        address.count == 4 ? [127, 0, 0, 1] : Array(repeating: 0, count: 15) + [1]
    }

    /// The addresses `host` resolves to (its brackets taken off); empty when it resolves to none.
    static func resolve(_ host: String) -> [Address] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr.flatMap(bytes(of:)) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// Every address of this machine's interfaces. Wraps `getifaddrs`.
    static func interfaceAddresses() -> [Address] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [Address] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            if let address = current.pointee.ifa_addr.flatMap(bytes(of:)) { addresses.append(address) }
            entry = current.pointee.ifa_next
        }
        return addresses
    }

    static func isLoopback(_ address: Address) -> Bool {
        address.count == 4 ? address[0] == 127 : address == Array(repeating: 0, count: 15) + [1]
    }

    static func isUnspecified(_ address: Address) -> Bool {
        address.allSatisfy { $0 == 0 }
    }

    private static func bytes(of socketAddress: UnsafeMutablePointer<sockaddr>) -> Address? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                withUnsafeBytes(of: address.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
            }
            // ::ffff:a.b.c.d is a.b.c.d.
            if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                return Array(bytes.suffix(4))
            }
            return bytes
        default:
            return nil
        }
    }
}
