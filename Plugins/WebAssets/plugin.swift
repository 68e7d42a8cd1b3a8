import Foundation
import PackagePlugin

/// Compiles the files of `web/` into the target that uses it, so the server carries its pages
/// and serves them whatever the working directory.
@main
struct WebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "web")
        // Every file of web/ and its folders (the player's modules are in web/player/), by path.
        let walk = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        let files = (walk?.allObjects as? [URL] ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "WebAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding web/ in \(target.name)",
                executable: try context.tool(named: "WebEmbedder").url,
                arguments: [output.path, folder.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
