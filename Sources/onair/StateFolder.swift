import FoundationEssentials

/// onair's folder for what it keeps between runs, the control API's token and the portal's
/// restore tokens: `$XDG_STATE_HOME/onair`, else `$HOME/.local/state/onair`, else that folder in
/// the account's home. Relative paths are ignored, as the XDG base directory rules ask.
enum StateFolder {
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/onair" }
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/onair"
    }
}
