import HLSModel
import Hummingbird

extension HTTPError {
    /// The answer to a request the model refuses: its status, with the reason as the message.
    init(_ refusal: some RequestRefusal) {
        self.init(Self.status(refusal.status), message: refusal.description)
    }

    /// The status of a code, with its reason phrase (RFC 9110, and RFC 4918 for WebDAV's 424 and 507).
    static func status(_ code: Int) -> HTTPResponse.Status {
        switch code {
        case 400: .badRequest
        case 404: .notFound
        case 409: .conflict
        case 424: .init(code: 424, reasonPhrase: "Failed Dependency")
        case 503: .serviceUnavailable
        case 507: .init(code: 507, reasonPhrase: "Insufficient Storage")
        default: .init(code: code)
        }
    }
}
