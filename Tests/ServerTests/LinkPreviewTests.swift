import Testing

@testable import Server

@Suite struct LinkPreviewTests {
    @Test(arguments: [
        ("example.com", true), ("127.0.0.1:8080", true), ("[::1]:8080", true), ("a-b.c", true),
        ("", false), ("evil\"><script>", false), ("a b", false), ("host/path", false), ("x@y", false),
        (String(repeating: "a", count: 256), false),
    ])
    func onlyAPlainHostIsWrittenIntoThePage(host: String, plain: Bool) {
        #expect(LinkPreview.isPlainHost(host) == plain)
    }

    @Test func theTagsNameTheChannelItsPageAndItsPicture() {
        let preview = LinkPreview(
            title: "demo · onair", pageURL: "https://tv.example/watch/demo",
            imageURL: "https://tv.example/live/demo/thumbnail.jpg")
        #expect(
            preview.tags == """
                <meta property="og:type" content="video.other">
                <meta property="og:site_name" content="onair">
                <meta property="og:title" content="demo · onair">
                <meta property="og:url" content="https://tv.example/watch/demo">
                <meta name="twitter:title" content="demo · onair">
                <meta property="og:image" content="https://tv.example/live/demo/thumbnail.jpg">
                <meta name="twitter:card" content="summary_large_image">
                <meta name="twitter:image" content="https://tv.example/live/demo/thumbnail.jpg">

                """)
        let plain = LinkPreview(title: "demo · onair", pageURL: "http://h/watch/demo", imageURL: nil)
        #expect(plain.tags.hasSuffix("<meta name=\"twitter:card\" content=\"summary\">\n"))
        #expect(
            Array(EmbeddedFiles.inserting("<x>\n", into: Array("<head><title>t</title></head><body>".utf8)))
                == Array("<head><title>t</title><x>\n</head><body>".utf8))
    }
}
