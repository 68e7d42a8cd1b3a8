import Runtime
import Media

/// Converts captured BGRX pixels into a yuv420p frame of the output size, scaled with the
/// source's aspect ratio kept and black bars around it: the whole picture, or only the pieces a
/// change reaches (`DamageMapping`), either read in bands of full rows. Keeps a scaler
/// (``BGRXScaler``) for the whole picture, made again when the captured size changes (a resized
/// window, a new screen resolution), a few more for pieces, by size, the scratch picture pieces are
/// converted into, and, where changes are redrawn as whole rows, a copy of the captured area.
final class PictureFitter {
    let outputWidth: Int
    let outputHeight: Int
    private var whole: BGRXScaler?
    private var placement = PixelRect(x: 0, y: 0, width: 0, height: 0)
    /// Scalers for pieces, by source and output size; dropped all at once when full.
    private var pieceScalers: [PieceSize: BGRXScaler] = [:]
    private static let pieceScalerLimit = 32
    private var scratch: VideoFrame?

    private struct PieceSize: Hashable {
        var sourceWidth, sourceHeight, outputWidth, outputHeight: Int
    }

    /// How pieces of a `width`×`height` capture map into the output.
    func mapping(width: Int, height: Int) -> DamageMapping {
        DamageMapping(
            sourceWidth: width, sourceHeight: height,
            placement: FrameGeometry.letterbox(
                sourceWidth: width, sourceHeight: height, targetWidth: outputWidth, targetHeight: outputHeight))
    }

    /// Hands what `read` reads and converts: the pixels of a rectangle of the captured area, and
    /// their stride, as read for it.
    typealias Read = (PixelRect, (UnsafeMutablePointer<UInt8>, Int) throws -> Void) throws -> Void

    /// `rect` in bands of full rows (of `rect`), at most `bandBytes` of BGRX each, top to bottom.
    func bands(of rect: PixelRect) -> [PixelRect] {
        let rows = max(1, min(rect.height, bandBytes / max(1, rect.width * 4)))
        return Swift.stride(from: 0, to: rect.height, by: rows).map {
            PixelRect(x: rect.x, y: rect.y + $0, width: rect.width, height: min(rows, rect.height - $0))
        }
    }

    /// Converts one piece of `mapping`, its source pixels read in bands by `read`, and copies its
    /// kept part into `frame`, whose other pixels stay as they are.
    func fit(piece: DamageMapping.Piece, of mapping: DamageMapping, into frame: VideoFrame, read: Read) throws {
        if piece.wholeRows {
            return try fit(rows: piece, of: mapping, into: frame, read: read)
        }
        let size = PieceSize(
            sourceWidth: piece.source.width, sourceHeight: piece.source.height, outputWidth: piece.output.width,
            outputHeight: piece.output.height)
        let scaler = try pieceScaler(size)
        if scratch == nil || scratch!.width < size.outputWidth || scratch!.height < size.outputHeight {
            scratch = try VideoFrame(
                width: max(size.outputWidth, scratch?.width ?? 0), height: max(size.outputHeight, scratch?.height ?? 0),
                index: 0)
        }
        let scratch = scratch!
        for band in bands(of: piece.source) {
            try read(band) { pixels, stride in
                try scaler.scale(
                    band: pixels, stride: stride, firstRow: band.y - piece.source.y, rows: band.height, into: scratch,
                    at: (0, 0))
            }
        }
        // The kept part, plane by plane (chroma at half size: pieces sit on an even grid).
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let columns = (piece.kept.width + shift) >> shift, lines = (piece.kept.height + shift) >> shift
            let fromX = (piece.kept.x - piece.output.x) >> shift, fromY = (piece.kept.y - piece.output.y) >> shift
            scratch.withPlane(plane) { from, fromStride, _, _ in
                frame.withPlane(plane) { to, toStride, _, _ in
                    for line in 0..<lines {
                        (to + ((piece.kept.y >> shift) + line) * toStride + (piece.kept.x >> shift)).update(
                            from: from + (fromY + line) * fromStride + fromX, count: columns)
                    }
                }
            }
        }
    }

    /// Puts the box read into the copy of the area, then converts the rows it reaches with the
    /// whole picture's scaler, asking it for those output rows only.
    private func fit(rows piece: DamageMapping.Piece, of mapping: DamageMapping, into frame: VideoFrame, read: Read)
        throws
    {
        let scaler = try wholeScaler(width: mapping.sourceWidth, height: mapping.sourceHeight)
        guard let copy, copy.width == mapping.sourceWidth, copy.height == mapping.sourceHeight else {
            throw CaptureError.redrawBeforeRead
        }
        for band in bands(of: piece.source) {
            try read(band) { pixels, stride in copy.put(band, from: pixels, stride: stride) }
        }
        let first = piece.kept.y - placement.y
        try scaler.scaleRows(
            of: copy.pixels, stride: copy.stride, into: frame, at: (placement.x, placement.y),
            rows: first..<(first + piece.kept.height))
    }

    /// The captured area as last read, in BGRX, kept where changes are redrawn as whole rows.
    private final class AreaCopy {
        let width: Int
        let height: Int
        let stride: Int
        let pixels: UnsafeMutablePointer<UInt8>

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            stride = width * 4
            pixels = .allocate(capacity: stride * height)
        }

        /// Copies `box` (area coordinates) from pixels read for it.
        func put(_ box: PixelRect, from read: UnsafeMutablePointer<UInt8>, stride readStride: Int) {
            for line in 0..<box.height {
                let to: UnsafeMutablePointer<UInt8> = pixels + (box.y + line) * stride + box.x * 4
                to.update(from: read + line * readStride, count: box.width * 4)
            }
        }

        deinit { pixels.deallocate() }
    }

    private var copy: AreaCopy?

    private func pieceScaler(_ size: PieceSize) throws -> BGRXScaler {
        if let scaler = pieceScalers[size] { return scaler }
        if pieceScalers.count >= Self.pieceScalerLimit { pieceScalers = [:] }
        let scaler = try BGRXScaler(
            sourceWidth: size.sourceWidth, sourceHeight: size.sourceHeight, outputWidth: size.outputWidth,
            outputHeight: size.outputHeight)
        pieceScalers[size] = scaler
        return scaler
    }

    /// The most BGRX read at once: a whole picture, or a piece, larger than that is read in bands
    /// (`bands(of:)`, `fit(width:height:into:read:)`).
    let bandBytes: Int
    static let defaultBandBytes = 2 << 20

    init(outputWidth: Int, outputHeight: Int, bandBytes: Int = PictureFitter.defaultBandBytes) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.bandBytes = bandBytes
    }

    /// Redraws the changed `boxes` of a `width`×`height` capture into `frame`, a copy of the
    /// `previous` picture: each box's piece (`DamageMapping`, area coordinates) is read by `read`,
    /// band by band, which hands their pixels and stride to the conversion. Returns the pixels read
    /// and converted, and the frame's changed areas.
    func redraw(
        _ boxes: [PixelRect], width: Int, height: Int, over previous: VideoFrame, into frame: VideoFrame, read: Read
    ) throws -> (read: Int, converted: Int, areas: [PixelRect]) {
        frame.copyPicture(from: previous)
        let mapping = mapping(width: width, height: height)
        var counts = (read: 0, converted: 0, areas: [PixelRect]())
        for box in boxes {
            let piece = mapping.piece(for: box)
            try fit(piece: piece, of: mapping, into: frame, read: read)
            counts.read += piece.source.width * piece.source.height
            counts.converted += piece.output.width * piece.output.height
            counts.areas.append(piece.kept)
        }
        return counts
    }

    /// Fills `frame` with the picture, in hand whole.
    func fit(_ pixels: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, into frame: VideoFrame) throws
    {
        try fit(width: width, height: height, into: frame) { band, convert in
            try convert(pixels + band.y * stride, stride)
        }
    }

    /// Fills `frame` with a `width`×`height` picture that `read` hands over band by band, top
    /// to bottom: full-width rows, at most `bandBytes` of BGRX each, so whoever reads the screen
    /// needs room for a band, not for the whole screen (a 3840x2160 screen is 33 MB). The scaler
    /// takes the bands as slices of one picture, so the frame is the same as from one read.
    func fit(width: Int, height: Int, into frame: VideoFrame, read: Read) throws {
        let scaler = try wholeScaler(width: width, height: height)
        if mapping(width: width, height: height).redrawsRows {
            if copy?.width != width || copy?.height != height { copy = AreaCopy(width: width, height: height) }
        } else {
            copy = nil
        }
        // The bars: the picture is painted over the rest.
        if placement.width < outputWidth || placement.height < outputHeight { frame.paintBlack() }
        for band in bands(of: PixelRect(x: 0, y: 0, width: width, height: height)) {
            try read(band) { pixels, stride in
                copy?.put(band, from: pixels, stride: stride)
                try scaler.scale(
                    band: pixels, stride: stride, firstRow: band.y, rows: band.height, into: frame,
                    at: (placement.x, placement.y))
            }
        }
    }

    /// The whole picture's scaler for a `width`×`height` capture, made again when the size changes;
    /// on two threads where changes are redrawn as whole rows (see ``BGRXScaler``).
    private func wholeScaler(width: Int, height: Int) throws -> BGRXScaler {
        if let whole, whole.sourceWidth == width, whole.sourceHeight == height { return whole }
        whole = nil
        placement = FrameGeometry.letterbox(
            sourceWidth: width, sourceHeight: height, targetWidth: outputWidth, targetHeight: outputHeight)
        let scaler = try BGRXScaler(
            sourceWidth: width, sourceHeight: height, outputWidth: placement.width, outputHeight: placement.height,
            threads: mapping(width: width, height: height).redrawsRows ? 2 : 1)
        whole = scaler
        return scaler
    }
}
