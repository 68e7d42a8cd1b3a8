#if canImport(Glibc)
    import Glibc
#endif

/// Whether the server could listen on host:port now, checked before anything starts so a
/// port in use is a clear error rather than a failure after the pipeline is up.
public enum PortCheck {
    /// nil when the port is free; otherwise the system's reason.
    public static func problem(host: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let address = results else {
            return "cannot resolve host \(host): \(String(cString: gai_strerror(status)))"
        }
        defer { freeaddrinfo(results) }
        let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, 0)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            return String(cString: strerror(errno))
        }
        return nil
    }
}
