public import FoundationEssentials

/// SRT: MPEG-TS to an SRT listener (a contribution encoder's receiver, a cloud ingest, ffmpeg or
/// srt-live-transmit), as the caller. `srt://HOST:PORT[?streamid=…&passphrase=…]`.
extension PacketLink {
    public static func srt(_ components: URLComponents, text: String) throws(PushDestination.Refusal) -> PacketLink {
        let form = "expected srt://HOST:PORT[?streamid=…&passphrase=…]"
        guard let host = components.host, !host.isEmpty, let port = components.port, (1...65535).contains(port),
            components.path.isEmpty || components.path == "/", components.fragment == nil, let url = components.url
        else { throw PushDestination.Refusal(description: "--push \(text): \(form)") }
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "streamid":
                guard (1...512).contains(value.utf8.count) else {
                    throw PushDestination.Refusal(description: "--push \(text): a streamid is 1 to 512 characters")
                }
            case "passphrase":
                // libsrt's rule: AES keys come from a passphrase of 10 to 64 characters.
                guard (10...64).contains(value.utf8.count) else {
                    throw PushDestination.Refusal(
                        description: "--push \(text): an SRT passphrase is 10 to 64 characters")
                }
            default:
                throw PushDestination.Refusal(
                    description: "--push \(text): unknown SRT option '\(item.name)'; \(form)")
            }
        }
        return PacketLink(
            format: "mpegts", url: url,
            // Caller mode, giving up a listener that does not answer within 5 s, then trying again.
            options: [Option("mode", "caller"), Option("connect_timeout", "5000")],
            description: "srt://\(host):\(port)" + ((components.queryItems ?? []).isEmpty ? "" : "?…"),
            steadyRateReason: "MPEG-TS carries no frame durations")
    }
}
