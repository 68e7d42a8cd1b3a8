import Testing

@testable import HLSModel

@Suite struct LanguageTests {
    @Test func aKnownLanguageIsNamedInEnglishWithItsRegion() {
        #expect(Language.name(of: "en") == "English")
        #expect(Language.name(of: "de") == "German")
        #expect(Language.name(of: "pt-BR") == "Portuguese (Brazil)")
        #expect(Language.name(of: "es-419") == "Spanish (Latin America)")
        #expect(Language.name(of: "en-NG") == "English (NG)")
        #expect(Language.name(of: "zh-Hant") == "Chinese", "a script is not a region")
        #expect(Language.name(of: "zh-Hant-TW") == "Chinese (Taiwan)")
    }

    @Test func anUnknownLanguageIsNamedByItsTag() {
        #expect(Language.name(of: "tlh") == "tlh")
        #expect(Language.name(of: "x-klingon") == "x-klingon")
    }

    @Test func anMP4NamesALanguageByItsThreeLetters() {
        #expect(Language.mp4Code(of: "en") == "eng")
        #expect(Language.mp4Code(of: "de-AT") == "deu")
        #expect(Language.mp4Code(of: "fil") == "fil", "a three-letter tag is its own code")
        #expect(Language.mp4Code(of: "xx") == "und")
        #expect(Language.mp4Code(of: "") == "und")
    }
}
