import Foundation
import PackagePlugin

/// Writes the commit the binary is built from into the target that uses it, for `onair --version`.
/// Its inputs are the checkout's `HEAD` and the files its branch may be kept in, so a new commit
/// writes it again; without a git checkout (a source archive) the commit is "unknown".
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let git = context.package.directoryURL.appending(path: ".git")
        let head = git.appending(path: "HEAD")
        var inputs = [head, git.appending(path: "packed-refs")]
        if let text = try? String(contentsOf: head, encoding: .utf8), text.hasPrefix("ref: ") {
            let branch = text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)
            inputs.append(git.appending(path: branch))
        }
        inputs = inputs.filter { FileManager.default.fileExists(atPath: $0.path) }
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift")
        return [
            .buildCommand(
                displayName: "Stamping the commit into \(target.name)",
                executable: try context.tool(named: "BuildInfoWriter").url,
                arguments: [output.path, git.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
