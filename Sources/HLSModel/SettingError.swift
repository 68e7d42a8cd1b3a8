/// A setting the model refuses before anything starts, said in one line that names the option and
/// what to give instead: the one error family of `HLSModel` for settings (a refused request is a
/// `RequestRefusal`, which knows its HTTP status).
public enum SettingError: Error, Equatable, CustomStringConvertible {
    /// `--renditions`: the whole line.
    case renditions(String)
    case pathwayNotNameAndURL(String)
    case pathwayBadName(String)
    case pathwayBadURL(String)
    case pathwayAlone
    case pathwayRepeatedName(String)
    case pathwaySameServer(String, String)

    public var description: String {
        switch self {
        case .renditions(let line): line
        case .pathwayNotNameAndURL(let text):
            "--pathway \(text): give NAME=URL, e.g. --pathway a=http://origin-a.example:8080"
        case .pathwayBadName(let name):
            "--pathway \(name): a name is 1 to 32 letters, digits, '.', '-' or '_'"
        case .pathwayBadURL(let url):
            "--pathway \(url): the URL is http:// or https://, a host, an optional port and path, no query"
        case .pathwayAlone:
            "--pathway names every origin viewers may use, this one and its twin: give at least two"
        case .pathwayRepeatedName(let name):
            "--pathway \(name) is given twice: each origin needs a name of its own"
        case .pathwaySameServer(let first, let second):
            "--pathway \(first) and \(second) name the same server: a twin is another server"
        }
    }
}
