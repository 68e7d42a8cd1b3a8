import ArgumentParser
import Encoding

struct WatermarkOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Stamp this PNG (its alpha honoured) on every frame before encoding.", valueName: "png"))
    var watermark: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "top-left, top-right, bottom-left, bottom-right, center, or X,Y in output pixels (negative: from the right or bottom).",
            valueName: "where"))
    var watermarkPosition = PositionArgument(.topRight)

    @Option(help: ArgumentHelp("Pixels between the watermark and the picture's edges.", valueName: "pixels"))
    var watermarkMargin = 16

    @Option(help: ArgumentHelp("Size as a factor of the image's own size. (default: 1)", valueName: "factor"))
    var watermarkScale: Double?

    @Option(
        help: ArgumentHelp("Width in output pixels instead; the height keeps the aspect ratio.", valueName: "pixels"))
    var watermarkWidth: Int?

    @Option(help: ArgumentHelp("0 (invisible) to 1 (as the image is).", valueName: "opacity"))
    var watermarkOpacity = 1.0

    func validate() throws {
        if watermark == nil,
            watermarkScale != nil || watermarkWidth != nil || watermarkOpacity != 1 || watermarkMargin != 16
                || watermarkPosition.position != .topRight
        {
            throw ValidationError("the --watermark-… options need --watermark FILE.png")
        }
        if watermarkScale != nil, watermarkWidth != nil {
            throw ValidationError("give --watermark-scale or --watermark-width, not both")
        }
        if let scale = watermarkScale, !(scale > 0 && scale <= 16) {
            throw ValidationError("--watermark-scale \(scale) is out of range: above 0, up to 16")
        }
        if let width = watermarkWidth, width < 1 {
            throw ValidationError("--watermark-width \(width) must be at least 1 pixel")
        }
        guard (0...1).contains(watermarkOpacity) else {
            throw ValidationError("--watermark-opacity \(watermarkOpacity) is out of range: 0 to 1")
        }
        guard watermarkMargin >= 0 else {
            throw ValidationError("--watermark-margin \(watermarkMargin) must not be negative")
        }
    }

    var placement: WatermarkPlacement {
        var placement = WatermarkPlacement()
        placement.position = watermarkPosition.position
        placement.margin = watermarkMargin
        placement.size = watermarkWidth.map { .width($0) } ?? .scale(watermarkScale ?? 1)
        placement.opacity = watermarkOpacity
        return placement
    }

    /// Decodes the image now, so a bad file is refused before anything starts.
    func load() throws -> (image: WatermarkImage, placement: WatermarkPlacement)? {
        guard let watermark else { return nil }
        do {
            return (try WatermarkImage(contentsOf: watermark), placement)
        } catch {
            throw UsageError(message: error.description)
        }
    }
}

/// `top-right`, `center`, `24,-16`, …
struct PositionArgument: ExpressibleByArgument, Equatable {
    let position: WatermarkPlacement.Position

    init(_ position: WatermarkPlacement.Position) {
        self.position = position
    }

    init?(argument: String) {
        let named: [String: WatermarkPlacement.Position] = [
            "top-left": .topLeft, "top-right": .topRight, "bottom-left": .bottomLeft, "bottom-right": .bottomRight,
            "center": .center, "centre": .center,
        ]
        if let position = named[argument.lowercased()] {
            self.init(position)
            return
        }
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Int(parts[0]), let y = Int(parts[1]) else { return nil }
        self.init(.point(x: x, y: y))
    }

    var defaultValueDescription: String { "top-right" }
}
