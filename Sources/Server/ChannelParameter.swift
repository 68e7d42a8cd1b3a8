import HLSModel
import Hummingbird

extension Parameters {
    /// The route's `:channel` as a channel's name: a 404 saying the rule when it is none, before
    /// anything of a channel is looked at.
    func channel() throws -> ChannelName {
        guard let name = ChannelName(try require("channel")) else {
            throw HTTPError(.notFound, message: "No such channel: a name is \(ChannelName.rule).")
        }
        return name
    }
}
