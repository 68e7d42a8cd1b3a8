import ArgumentParser
import FoundationEssentials
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

@main
struct Onair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onair",
        abstract: "Publish a live HLS stream of a screen, with a built-in HTTP server.",
        discussion: """
            Start a broadcast with `onair publish`, then open the playlist URL it prints in any HLS player \
            (Safari, VLC, ffplay, mpv) or point a web page's <video> element at it. On a server, \
            `onair serve` takes channels pushed from elsewhere and serves them, behind edge caches.
            """,
        version: "onair \(version) (commit \(BuildInfo.commit))",
        subcommands: [Publish.self, Serve.self, Mark.self, Devices.self],
        defaultSubcommand: Publish.self)

    /// The release this tree is; `scripts/package.sh` names the package after it.
    static let version = "0.9.0"

    /// Bad input is one line on stderr and exit status 2, before anything starts.
    static func main() async {
        Heap.limitArenas()
        Heap.mapLargeBlocks()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as UsageError {
            writeToStandardError("onair: \(error.message)\n")
            Glibc.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                writeToStandardError("onair: \(message(for: error))\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// An input that cannot work, found before anything starts.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
