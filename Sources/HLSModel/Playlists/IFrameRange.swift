/// Where a fragmented MP4 segment's first keyframe lies: the bytes from its first `moof` box to the
/// end of the video track's first sample. An I-frame playlist (`EXT-X-I-FRAMES-ONLY`) lists them
/// as `EXT-X-BYTERANGE`s into the segments themselves, so trick play and seek previews need no
/// files of their own. Every segment starts with an IDR (the segmenter cuts there), so one range
/// per segment is every I-frame.
///
/// Read from the boxes (ISO/IEC 14496-12): the init segment's `moov` says which track is video
/// (`tkhd` and `hdlr`), the segment's `moof` where its first sample is (`tfhd`, `trun`). Pure, and
/// careful: the bytes may be a publisher's, so a box that overruns its parent, or a sample outside
/// the segment, gives no range rather than a wrong one.
public struct IFrameRange: Sendable, Equatable {
    /// From the segment's first byte.
    public var offset: Int
    public var length: Int

    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }

    /// `EXT-X-BYTERANGE`'s value: `<length>@<offset>`.
    public var byteRange: String { "\(length)@\(offset)" }

    /// The range of `segment`'s first sample of track `track`, from its first `moof`; nil when the
    /// segment has no such fragment, the sample is not a sync sample, or the boxes do not add up.
    public static func locate(in segment: [UInt8], track: UInt32) -> IFrameRange? {
        guard let moof = Box.children(of: segment, in: 0..<segment.count).first(where: { $0.type == "moof" }) else {
            return nil
        }
        for traf in Box.children(of: segment, in: moof.content) where traf.type == "traf" {
            let boxes = Box.children(of: segment, in: traf.content)
            guard let tfhd = boxes.first(where: { $0.type == "tfhd" }).flatMap({ Header(segment, tfhd: $0) }),
                tfhd.track == track
            else { continue }
            guard let run = boxes.first(where: { $0.type == "trun" }).flatMap({ FirstSample(segment, trun: $0) }),
                let size = run.size ?? tfhd.defaultSize, size > 0
            else { return nil }
            if let flags = run.flags ?? tfhd.defaultFlags, flags & 0x1_0000 != 0 { return nil }
            // Every number here is the publisher's: each is checked against the segment's size
            // before it is added to another, so none can overflow.
            let base = tfhd.baseOffset ?? moof.start
            guard base <= segment.count, size <= segment.count else { return nil }
            let start = base + run.dataOffset
            guard start >= moof.end, start + size <= segment.count else { return nil }
            let end = start + size
            return IFrameRange(offset: moof.start, length: end - moof.start)
        }
        return nil
    }

    /// The `track_ID` of the init segment's video track (its `hdlr` says `vide`); nil when it has none.
    public static func videoTrack(inInitSegment bytes: [UInt8]) -> UInt32? {
        guard let moov = Box.children(of: bytes, in: 0..<bytes.count).first(where: { $0.type == "moov" }) else {
            return nil
        }
        for trak in Box.children(of: bytes, in: moov.content) where trak.type == "trak" {
            let boxes = Box.children(of: bytes, in: trak.content)
            guard let tkhd = boxes.first(where: { $0.type == "tkhd" }),
                let mdia = boxes.first(where: { $0.type == "mdia" }),
                let hdlr = Box.children(of: bytes, in: mdia.content).first(where: { $0.type == "hdlr" })
            else { continue }
            // hdlr: version and flags, pre_defined, then handler_type.
            guard hdlr.content.count >= 12, Box.fourCC(bytes, at: hdlr.content.lowerBound + 8) == "vide" else {
                continue
            }
            // tkhd: version and flags, two times (4 bytes each in version 0, 8 in version 1), track_ID.
            guard !tkhd.content.isEmpty else { continue }
            let timeSize = bytes[tkhd.content.lowerBound] == 1 ? 8 : 4
            let at = tkhd.content.lowerBound + 4 + 2 * timeSize
            guard at + 4 <= tkhd.content.upperBound else { continue }
            return Box.uint32(bytes, at: at)
        }
        return nil
    }

    /// A box: where it starts, its four-character type, and its content after the header.
    struct Box {
        var start: Int
        var type: String
        var content: Range<Int>
        var end: Int { content.upperBound }

        /// The boxes in `range` of `bytes`, in order, until one does not fit.
        static func children(of bytes: [UInt8], in range: Range<Int>) -> [Box] {
            var boxes: [Box] = []
            var at = range.lowerBound
            while at + 8 <= range.upperBound {
                var size = Int(uint32(bytes, at: at))
                var header = 8
                if size == 1 {
                    guard at + 16 <= range.upperBound else { break }
                    let large = uint64(bytes, at: at + 8)
                    guard large <= UInt64(range.upperBound - at) else { break }
                    size = Int(large)
                    header = 16
                } else if size == 0 {
                    size = range.upperBound - at
                }
                guard size >= header, size <= range.upperBound - at else { break }
                boxes.append(Box(start: at, type: fourCC(bytes, at: at + 4), content: (at + header)..<(at + size)))
                at += size
            }
            return boxes
        }

        static func fourCC(_ bytes: [UInt8], at offset: Int) -> String {
            String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
        }

        static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }

        static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// What a `tfhd` says of its fragment's samples.
    struct Header {
        var track: UInt32
        var baseOffset: Int?
        var defaultSize: Int?
        var defaultFlags: UInt32?

        init?(_ bytes: [UInt8], tfhd: Box) {
            var reader = FieldReader(bytes: bytes, range: tfhd.content)
            guard let flags = reader.fullBoxFlags(), let track = reader.uint32() else { return nil }
            self.track = track
            if flags & 0x01 != 0 {
                guard let base = reader.uint64(), base < UInt64(Int.max) else { return nil }
                baseOffset = Int(base)
            }
            if flags & 0x02 != 0, reader.uint32() == nil { return nil }
            if flags & 0x08 != 0, reader.uint32() == nil { return nil }
            if flags & 0x10 != 0 {
                guard let size = reader.uint32() else { return nil }
                defaultSize = Int(size)
            }
            if flags & 0x20 != 0 {
                guard let sampleFlags = reader.uint32() else { return nil }
                defaultFlags = sampleFlags
            }
        }
    }

    /// What a `trun` says of its first sample.
    struct FirstSample {
        var dataOffset = 0
        var size: Int?
        var flags: UInt32?

        init?(_ bytes: [UInt8], trun: Box) {
            var reader = FieldReader(bytes: bytes, range: trun.content)
            guard let flags = reader.fullBoxFlags(), let count = reader.uint32(), count > 0 else { return nil }
            if flags & 0x001 != 0 {
                guard let offset = reader.uint32() else { return nil }
                dataOffset = Int(Int32(bitPattern: offset))
            }
            if flags & 0x004 != 0 {
                guard let first = reader.uint32() else { return nil }
                self.flags = first
            }
            if flags & 0x100 != 0, reader.uint32() == nil { return nil }
            if flags & 0x200 != 0 {
                guard let size = reader.uint32() else { return nil }
                self.size = Int(size)
            }
            if flags & 0x400 != 0 {
                guard let sampleFlags = reader.uint32() else { return nil }
                if flags & 0x004 == 0 { self.flags = sampleFlags }
            }
        }
    }

    /// Big-endian fields read in order within a box, each checked against its end.
    struct FieldReader {
        let bytes: [UInt8]
        let range: Range<Int>
        var at: Int

        init(bytes: [UInt8], range: Range<Int>) {
            self.bytes = bytes
            self.range = range
            at = range.lowerBound
        }

        /// A full box's version and flags; returns the flags.
        mutating func fullBoxFlags() -> UInt32? {
            uint32().map { $0 & 0x00FF_FFFF }
        }

        mutating func uint32() -> UInt32? {
            guard at + 4 <= range.upperBound else { return nil }
            defer { at += 4 }
            return Box.uint32(bytes, at: at)
        }

        mutating func uint64() -> UInt64? {
            guard at + 8 <= range.upperBound else { return nil }
            defer { at += 8 }
            return Box.uint64(bytes, at: at)
        }
    }
}
