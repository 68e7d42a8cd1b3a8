import ArgumentParser
import FoundationEssentials
import HLSModel
import Publisher

/// `--captions`: the channel gets a subtitle rendition (WebVTT) that players show behind their CC
/// button, fed by the control API; `--captions-language` and `--captions-name` say what it is.
struct CaptionOptions: ParsableArguments {
    @ArgumentParser.Flag(
        help: ArgumentHelp(
            "Add live captions: a subtitle track every player shows (CC), fed by POST /api/channels/<channel>/captions."
        ))
    var captions = false

    @Option(
        help: ArgumentHelp(
            "Captions from this command (implies --captions): it reads the broadcast's sound on its standard input (16 kHz mono signed 16-bit PCM) and writes one cue a line on its standard output as JSON: {\"text\": \"Hello\", \"start\": 1.2, \"end\": 3.4}, in seconds from the start of its input. A speech-to-text program (Vosk, whisper.cpp, a cloud client) fits there; scripts/captions-example.py is an example.",
            valueName: "command"))
    var captionsFrom: String?

    @Option(
        help: ArgumentHelp(
            "The captions' language, as a tag such as en, de or pt-BR.", valueName: "tag"))
    var captionsLanguage = "en"

    @Option(
        help: ArgumentHelp(
            "What players call the captions (default: the language's name, e.g. English).", valueName: "name"))
    var captionsName: String?

    func validate() throws {
        if let captionsFrom, captionsFrom.allSatisfy(\.isWhitespace) {
            throw ValidationError("--captions-from needs a command to run")
        }
        if !captions, captionsFrom == nil, captionsName != nil || captionsLanguage != "en" {
            throw ValidationError("--captions-language and --captions-name describe --captions: add it")
        }
        if let problem = settings?.described.problem {
            throw ValidationError(
                problem.replacing("the captions' language", with: "--captions-language")
                    .replacing("the captions' name", with: "--captions-name"))
        }
    }

    /// The captions the broadcast gets; nil without `--captions`.
    var settings: BroadcastConfiguration.Captions? {
        guard captions || captionsFrom != nil else { return nil }
        return BroadcastConfiguration.Captions(
            language: captionsLanguage, name: captionsName ?? Language.name(of: captionsLanguage),
            command: captionsFrom)
    }
}

extension BroadcastConfiguration.Captions {
    /// What the multivariant playlist says of them.
    var described: Rendition.Captions { Rendition.Captions(language: language, name: name) }
}
