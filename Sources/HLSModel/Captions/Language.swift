/// What onair knows of a language tag (BCP 47, "en", "pt-BR"): its English name, for a captions
/// rendition's `NAME` when none is given, and its three letters (ISO 639-2/T), for an MP4 track.
/// A table of the languages most talks are given in, not a locale library: ICU's would cost the
/// binary 36 MB. A tag it does not know is named by itself, and its MP4 code is "und".
public enum Language {
    /// English name and ISO 639-2/T code, by the ISO 639-1 primary subtag.
    static let known: [String: (name: String, code: String)] = [
        "ar": ("Arabic", "ara"), "bg": ("Bulgarian", "bul"), "bn": ("Bangla", "ben"), "ca": ("Catalan", "cat"),
        "cs": ("Czech", "ces"), "cy": ("Welsh", "cym"), "da": ("Danish", "dan"), "de": ("German", "deu"),
        "el": ("Greek", "ell"), "en": ("English", "eng"), "eo": ("Esperanto", "epo"), "es": ("Spanish", "spa"),
        "et": ("Estonian", "est"), "eu": ("Basque", "eus"), "fa": ("Persian", "fas"), "fi": ("Finnish", "fin"),
        "fr": ("French", "fra"), "ga": ("Irish", "gle"), "gl": ("Galician", "glg"), "he": ("Hebrew", "heb"),
        "hi": ("Hindi", "hin"), "hr": ("Croatian", "hrv"), "hu": ("Hungarian", "hun"), "id": ("Indonesian", "ind"),
        "is": ("Icelandic", "isl"), "it": ("Italian", "ita"), "ja": ("Japanese", "jpn"), "ko": ("Korean", "kor"),
        "lt": ("Lithuanian", "lit"), "lv": ("Latvian", "lav"), "ms": ("Malay", "msa"),
        "nb": ("Norwegian Bokmål", "nob"),
        "nl": ("Dutch", "nld"), "nn": ("Norwegian Nynorsk", "nno"), "no": ("Norwegian", "nor"), "pl": ("Polish", "pol"),
        "pt": ("Portuguese", "por"), "ro": ("Romanian", "ron"), "ru": ("Russian", "rus"), "sk": ("Slovak", "slk"),
        "sl": ("Slovenian", "slv"), "sr": ("Serbian", "srp"), "sv": ("Swedish", "swe"), "sw": ("Swahili", "swa"),
        "ta": ("Tamil", "tam"), "th": ("Thai", "tha"), "tr": ("Turkish", "tur"), "uk": ("Ukrainian", "ukr"),
        "ur": ("Urdu", "urd"), "vi": ("Vietnamese", "vie"), "zh": ("Chinese", "zho"),
    ]

    /// English names of the regions a tag most often carries.
    static let regions: [String: String] = [
        "AR": "Argentina", "AT": "Austria", "AU": "Australia", "BE": "Belgium", "BR": "Brazil", "CA": "Canada",
        "CH": "Switzerland", "CN": "China", "DE": "Germany", "ES": "Spain", "FR": "France", "GB": "United Kingdom",
        "HK": "Hong Kong", "IE": "Ireland", "IN": "India", "MX": "Mexico", "NZ": "New Zealand", "PT": "Portugal",
        "TW": "Taiwan", "US": "United States", "ZA": "South Africa", "419": "Latin America",
    ]

    /// The language's English name, with its region when the tag has one ("Portuguese (Brazil)"),
    /// or the tag itself when the table lacks the language.
    public static func name(of tag: String) -> String {
        let subtags = tag.split(separator: "-").map(String.init)
        guard let primary = subtags.first, let language = known[primary.lowercased()] else { return tag }
        // A region is two letters or three digits; a script ("Hant") or a variant is not named.
        guard
            let region = subtags.dropFirst().first(where: {
                $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isNumber))
            })
        else { return language.name }
        return "\(language.name) (\(regions[region.uppercased()] ?? region.uppercased()))"
    }

    /// The language's three letters for an MP4 track ("eng" for "en-US"), "und" when unknown.
    public static func mp4Code(of tag: String) -> String {
        let primary = tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
        if primary.count == 3, primary.allSatisfy({ $0.isASCII && $0.isLetter }) { return primary }
        return known[primary]?.code ?? "und"
    }
}
