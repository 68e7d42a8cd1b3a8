public import FoundationEssentials

/// RTMP(S): FLV to YouTube Live, Twitch, nginx-rtmp. `rtmp(s)://HOST[:PORT]/APP/STREAM-KEY`.
extension PacketLink {
    public static func rtmp(_ components: URLComponents, text: String) throws(PushDestination.Refusal) -> PacketLink {
        let scheme = components.scheme?.lowercased() ?? "rtmp"
        let path = components.path.split(separator: "/")
        guard let host = components.host, !host.isEmpty, path.count >= 2, let url = components.url else {
            throw PushDestination.Refusal(description: "--push \(text): expected \(scheme)://HOST/APP/STREAM-KEY")
        }
        let app = path.dropLast().joined(separator: "/")
        return PacketLink(
            format: "flv", url: url,
            description: "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")/\(app)/…",
            steadyRateReason: "an RTMP service may expect a steady rate", verifiesTLS: scheme == "rtmps")
    }
}
