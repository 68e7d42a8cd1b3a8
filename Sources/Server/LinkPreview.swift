import HLSModel
import HTTPTypes
import Hummingbird
import HLS

/// What a chat app or a social site shows for a shared watch link: Open Graph and Twitter card tags
/// in the watch page's head, with the channel's thumbnail as the picture (crawlers run no script,
/// so the server writes them). Addresses are absolute, made from the request's `Host`, which is
/// used only when it is a plain host name or address with an optional port.
struct LinkPreview {
    let title: String
    let pageURL: String
    let imageURL: String?

    /// The tags, one per line.
    var tags: String {
        var lines = [
            "<meta property=\"og:type\" content=\"video.other\">",
            "<meta property=\"og:site_name\" content=\"onair\">",
            "<meta property=\"og:title\" content=\"\(title)\">",
            "<meta property=\"og:url\" content=\"\(pageURL)\">",
            "<meta name=\"twitter:title\" content=\"\(title)\">",
        ]
        if let imageURL {
            lines += [
                "<meta property=\"og:image\" content=\"\(imageURL)\">",
                "<meta name=\"twitter:card\" content=\"summary_large_image\">",
                "<meta name=\"twitter:image\" content=\"\(imageURL)\">",
            ]
        } else {
            lines.append("<meta name=\"twitter:card\" content=\"summary\">")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Letters, digits, `.`, `-`, `:`, `[` and `]` (a name, an IPv4 or bracketed IPv6 address, a port).
    static func isPlainHost(_ host: String) -> Bool {
        (1...255).contains(host.utf8.count)
            && host.utf8.allSatisfy { byte in
                isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
            }
    }

    /// What a viewer token is made of (base64url and its separator).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
    }
}

extension LinkPreview {
    /// Nil when the request's Host is missing or not plain.
    init?(request: Request, scheme: String, channel: ChannelName, hasPicture: Bool) {
        guard let host = request.head.authority, Self.isPlainHost(host) else { return nil }
        // A private channel's link carries its token; the picture needs the same one.
        let token = request.uri.queryParameters["token"].map(String.init).flatMap { token in
            token.utf8.allSatisfy { Self.isTokenByte($0) } && token.utf8.count <= 512 ? token : nil
        }
        let query = token.map { "?token=" + $0 } ?? ""
        title = "\(channel) · onair"
        pageURL = "\(scheme)://\(host)/watch/\(channel)\(query)"
        imageURL = hasPicture ? "\(scheme)://\(host)/live/\(channel)/\(LiveRoutes.thumbnailName)\(query)" : nil
    }
}
