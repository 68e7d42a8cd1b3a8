public import Runtime

/// `--renditions`: the qualities a broadcast is published in, as asked for and as planned for a
/// source. Pure, so every rule has an exact test.
public enum LadderRequest: Sendable, Equatable {
    /// A ladder chosen for the source's size and the machine's cores (``RenditionLadder/auto(sourceWidth:sourceHeight:cores:)``).
    case auto
    case rungs([Rung])

    /// One asked-for rung: `720p` (a short side, the source's shape), `1280x720`, either with `@2500k`
    /// and either with `:av1` (its codec; without one, the broadcast's `--codec`).
    public struct Rung: Sendable, Equatable {
        public enum Size: Sendable, Equatable {
            case shortSide(Int)
            case exact(width: Int, height: Int)
        }

        public var size: Size
        /// Bits per second; nil picks one for the size (``RenditionLadder/bitrate(width:height:)``).
        public var bitrate: Int?
        /// Its codec; nil takes the broadcast's.
        public var codec: VideoCodec?

        public init(size: Size, bitrate: Int? = nil, codec: VideoCodec? = nil) {
            self.size = size
            self.bitrate = bitrate
            self.codec = codec
        }
    }

    /// Parses `auto`, or a comma-separated list of rungs.
    public static func parse(_ text: String) throws(SettingError) -> LadderRequest {
        if text == "auto" { return .auto }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !items.isEmpty, items.count <= RenditionLadder.maximumRungs else {
            throw SettingError.renditions(
                "--renditions takes 1 to \(RenditionLadder.maximumRungs) rungs, e.g. 1080p,720p,360p")
        }
        var rungs: [Rung] = []
        for item in items {
            rungs.append(try parseRung(item))
        }
        return .rungs(rungs)
    }

    private static func parseRung(_ item: Substring) throws(SettingError) -> Rung {
        let named = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var codec: VideoCodec?
        if named.count == 2 {
            guard let chosen = VideoCodec(name: named[1]) else {
                throw SettingError.renditions(
                    "--renditions: '\(item)' names codec '\(named[1])': give one of \(VideoCodec.names), e.g. 1080p:av1"
                )
            }
            codec = chosen
        }
        var rung = try parseSize(named[0], item: item)
        rung.codec = codec
        return rung
    }

    /// `720p`, `1280x720`, either with `@rate`.
    private static func parseSize(_ text: Substring, item: Substring) throws(SettingError) -> Rung {
        let fields = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let sizeText = fields[0]
        var bitrate: Int?
        if fields.count == 2 {
            guard let rate = bitsPerSecond(fields[1]), (100_000...50_000_000).contains(rate) else {
                throw SettingError.renditions(
                    "--renditions: '\(item)' has a bad rate: give 100k to 50M, e.g. 720p@2500k")
            }
            bitrate = rate
        }
        if sizeText.hasSuffix("p"), let short = Int(sizeText.dropLast()), String(short) + "p" == sizeText {
            guard (144...2160).contains(short), short % 2 == 0 else {
                throw SettingError.renditions("--renditions: '\(item)' is out of range: 144p to 2160p, even")
            }
            return Rung(size: .shortSide(short), bitrate: bitrate)
        }
        let sides = sizeText.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]) else {
            throw SettingError.renditions(
                "--renditions: '\(item)' is not a rung: give a quality (720p) or a size (1280x720), "
                    + "each with an optional @rate and :codec, e.g. 1080p,720p,360p or 1280x720@2500k,640x360@600k "
                    + "or 1080p:av1,1080p,360p")
        }
        guard (16...3840).contains(width), (16...2160).contains(height), width % 2 == 0, height % 2 == 0 else {
            throw SettingError.renditions("--renditions: '\(item)' is out of range: 16x16 to 3840x2160, both even")
        }
        return Rung(size: .exact(width: width, height: height), bitrate: bitrate)
    }

}

/// The renditions a broadcast encodes, largest first: the first is the captured picture's size,
/// each other one scaled from that picture.
public struct RenditionLadder: Sendable, Equatable {
    public struct Rung: Sendable, Equatable {
        /// Its name in URLs and folders: `720p`, or `1280x720` when asked for by size.
        public var id: String
        public var width: Int
        public var height: Int
        public var videoBitrate: Int
        public var codec: VideoCodec

        public init(id: String, width: Int, height: Int, videoBitrate: Int, codec: VideoCodec = .standard) {
            self.id = id
            self.width = width
            self.height = height
            self.videoBitrate = videoBitrate
            self.codec = codec
        }
    }

    public static let maximumRungs = 6

    public var rungs: [Rung]
    /// What was asked for but left out, each with why, for a notice.
    public var skipped: [String]

    public init(rungs: [Rung], skipped: [String] = []) {
        self.rungs = rungs
        self.skipped = skipped
    }

    /// The bit rate for screen content of this size in H.264: 2500k at 1280x720, growing with the
    /// pixel count to the power 0.75 (1080p 4600k, 360p 900k), rounded to 100k; other codecs take
    /// their share of it (``VideoCodec/rateShare``).
    public static func bitrate(width: Int, height: Int, codec: VideoCodec = .standard) -> Int {
        let scale = Double(width * height) / (1280 * 720)
        let rate = 2_500_000 * pow075(scale) * codec.rateShare
        return max(200_000, Int((rate / 100_000).rounded()) * 100_000)
    }

    private static func pow075(_ value: Double) -> Double {
        // x^0.75 = sqrt(x) * sqrt(sqrt(x)), without Foundation.
        let root = value.squareRoot()
        return root * root.squareRoot()
    }

    /// The ladder for `request` from a `sourceWidth`×`sourceHeight` picture: quality names take the
    /// source's shape, a rung above the source's size is skipped (said in `skipped`), and rungs are
    /// ordered largest first (rungs of one size in the order given). Every rung must keep the first
    /// one's shape (within 2 %), since the others are scaled from its picture. A rung without a
    /// codec takes `codec`; `cores` is for `auto`.
    public static func plan(
        _ request: LadderRequest, sourceWidth: Int, sourceHeight: Int, cores: Int, codec: VideoCodec = .standard
    ) throws(SettingError) -> RenditionLadder {
        guard case .rungs(let asked) = request else {
            return auto(sourceWidth: sourceWidth, sourceHeight: sourceHeight, cores: cores, codec: codec)
        }
        var rungs: [Rung] = []
        var skipped: [String] = []
        for rung in asked {
            let (name, size) = sized(rung.size, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            let rungCodec = rung.codec ?? codec
            let id = name + rungCodec.rungSuffix
            if size.width > sourceWidth || size.height > sourceHeight || size.width == 0 {
                skipped.append("\(id) is above the source's \(sourceWidth)x\(sourceHeight)")
                continue
            }
            guard
                !rungs.contains(where: {
                    $0.id == id || ($0.width == size.width && $0.height == size.height && $0.codec == rungCodec)
                })
            else {
                throw SettingError.renditions("--renditions: \(id) is given twice")
            }
            rungs.append(
                Rung(
                    id: id, width: size.width, height: size.height,
                    videoBitrate: rung.bitrate ?? bitrate(width: size.width, height: size.height, codec: rungCodec),
                    codec: rungCodec))
        }
        guard !rungs.isEmpty else {
            throw SettingError.renditions(
                "--renditions: every rung is above the source's \(sourceWidth)x\(sourceHeight); give smaller ones")
        }
        // Largest first; of one size, in the order given.
        rungs = rungs.enumerated().sorted { first, second in
            let (a, b) = (first.element.width * first.element.height, second.element.width * second.element.height)
            return a != b ? a > b : first.offset < second.offset
        }.map(\.element)
        let top = rungs[0]
        for rung in rungs.dropFirst() {
            let shape = Double(rung.width * top.height) / Double(rung.height * top.width)
            guard abs(shape - 1) <= 0.02 else {
                throw SettingError.renditions(
                    "--renditions: \(rung.id) does not have the shape of \(top.id) (\(top.width)x\(top.height)); "
                        + "every rung is scaled from the largest, so give sizes of one shape or quality names")
            }
        }
        return RenditionLadder(rungs: rungs, skipped: skipped)
    }

    /// An asked-for size's name (`720p`, `1280x720`) and its pixels; a quality above the source's
    /// short side comes back 0x0 (skipped).
    private static func sized(
        _ size: LadderRequest.Rung.Size, sourceWidth: Int, sourceHeight: Int
    ) -> (String, (width: Int, height: Int)) {
        switch size {
        case .shortSide(let short):
            guard short <= min(sourceWidth, sourceHeight) else { return ("\(short)p", (0, 0)) }
            return (
                "\(short)p", FrameGeometry.size(sourceWidth: sourceWidth, sourceHeight: sourceHeight, shortSide: short)
            )
        case .exact(let width, let height):
            return ("\(width)x\(height)", (width, height))
        }
    }

    /// 1080p (or the source's own size when smaller), then 720p and 360p below it; one rung per
    /// core: a 2-core machine gets the top rung and 360p, a single core only the top.
    public static func auto(
        sourceWidth: Int, sourceHeight: Int, cores: Int, codec: VideoCodec = .standard
    ) -> RenditionLadder {
        let sourceShort = min(sourceWidth, sourceHeight)
        let topShort = min(1080, sourceShort)
        var shorts = [topShort] + [720, 360].filter { $0 < topShort && topShort - $0 >= 120 }
        let count = max(1, min(cores, 3))
        if shorts.count > count {
            // Keep the top and the bottom: the widest range for the rungs there are.
            shorts = count == 1 ? [shorts[0]] : Array(shorts.prefix(count - 1)) + [shorts.last!]
        }
        let rungs = shorts.map { short in
            let size = FrameGeometry.size(sourceWidth: sourceWidth, sourceHeight: sourceHeight, shortSide: short)
            return Rung(
                id: "\(short)p" + codec.rungSuffix, width: size.width, height: size.height,
                videoBitrate: bitrate(width: size.width, height: size.height, codec: codec), codec: codec)
        }
        return RenditionLadder(rungs: rungs)
    }

    /// More than one rung: files go under a folder per rung.
    public var isLadder: Bool { rungs.count > 1 }
}
