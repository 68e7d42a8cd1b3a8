import Testing
import Media

@testable import Packaging
import HLS

@Suite struct SegmenterTests {
    static let frame = 1.0 / 30

    /// Feeds `count` video frames at 30 fps, a keyframe every `gop`, and collects the events.
    static func run(_ segmenter: inout Segmenter, frames count: Int, gop: Int = 60) -> [Segmenter.Event] {
        (0..<count).flatMap { index in
            segmenter.accept(kind: .video, time: Double(index) * frame, isKeyframe: index % gop == 0)
        }
    }

    static func closed(_ events: [Segmenter.Event]) -> [Segmenter.ClosedSegment] {
        events.compactMap { if case .segmentEnded(let segment) = $0 { segment } else { nil } }
    }

    @Test func segmentsEndBeforeEachKeyframeOnTheGrid() {
        var segmenter = Segmenter(configuration: .init(segmentDuration: 2, frameDuration: Self.frame))
        let segments = Self.closed(Self.run(&segmenter, frames: 181))
        #expect(segments.map(\.index) == [0, 1, 2])
        #expect(segments.map(\.start) == [0, 2, 4].map { Double($0) * 30 * Self.frame })
        for segment in segments {
            #expect(abs(segment.duration - 2) < 1e-9)
        }
    }

    @Test func finishClosesTheLastSegmentAfterItsLastFrame() {
        var segmenter = Segmenter(configuration: .init(segmentDuration: 2, frameDuration: Self.frame))
        _ = Self.run(&segmenter, frames: 75)
        let last = Self.closed(segmenter.finish())
        #expect(last.count == 1)
        #expect(last[0].index == 1)
        #expect(abs(last[0].start - 2) < 1e-9)
        #expect(abs(last[0].duration - 0.5) < 1e-9)
    }

    @Test func audioNeverCuts() {
        var segmenter = Segmenter(
            configuration: .init(segmentDuration: 1, partDuration: 0.2, frameDuration: Self.frame))
        _ = segmenter.accept(kind: .video, time: 0, isKeyframe: true)
        #expect(segmenter.accept(kind: .audio, time: 5, isKeyframe: true).isEmpty)
    }

    @Test func aSoundOnlyRenditionIsCutOnTheSameGridAtItsFirstFrameThere() {
        // AAC at 48 kHz: 1024 samples a frame, 21.333 ms; half a frame of slack.
        let frame = 1024.0 / 48000
        var segmenter = Segmenter(
            configuration: .init(segmentDuration: 1, partDuration: 0.2, frameDuration: frame, cutsOn: .audio))
        #expect(segmenter.accept(kind: .video, time: 0, isKeyframe: true).isEmpty, "video does not cut here")
        let events = (0..<90).flatMap { segmenter.accept(kind: .audio, time: Double($0) * frame, isKeyframe: false) }
        let parts = events.compactMap { event -> (Double, Bool)? in
            if case .fragmentEnded(let duration, let independent) = event { (duration, independent) } else { nil }
        }
        // Parts of 9 frames (0.192 s: the first frame at or past 0.2 s less half a frame), every one
        // independent, five in the first segment and four in the second so far; the first segment
        // ends at frame 47 (1.0027 s), the first within half a frame of 1 s.
        #expect(parts.count == 9)
        #expect(parts.allSatisfy { abs($0.0 - 9 * frame) < 1e-9 && $0.1 })
        let segments = Self.closed(events)
        #expect(segments.count == 1)
        #expect(abs(segments[0].duration - 47 * frame) < 1e-9)
        #expect(abs(segments[0].lastFragmentDuration - 2 * frame) < 1e-9 && segments[0].lastFragmentIndependent)
        let last = Self.closed(segmenter.finish())
        #expect(abs(last[0].start - 47 * frame) < 1e-9 && abs(last[0].duration - 43 * frame) < 1e-9)
    }

    @Test func keyframeOffTheGridDoesNotCut() {
        var segmenter = Segmenter(configuration: .init(segmentDuration: 2, frameDuration: Self.frame))
        _ = segmenter.accept(kind: .video, time: 0, isKeyframe: true)
        #expect(segmenter.accept(kind: .video, time: 1, isKeyframe: true).isEmpty)
    }

    @Test func partsAreFragmentsOnTheirOwnGridAndMarkIndependence() {
        var segmenter = Segmenter(
            configuration: .init(segmentDuration: 1, partDuration: 0.2, frameDuration: Self.frame))
        let events = Self.run(&segmenter, frames: 31, gop: 30)
        // Four parts of 6 frames end inside the segment, then the fifth ends with it.
        let parts = events.compactMap { event -> (Double, Bool)? in
            if case .fragmentEnded(let duration, let independent) = event { (duration, independent) } else { nil }
        }
        #expect(parts.count == 4)
        #expect(parts.map(\.1) == [true, false, false, false])
        for part in parts {
            #expect(abs(part.0 - 0.2) < 1e-9)
        }
        let segments = Self.closed(events)
        #expect(segments.count == 1)
        #expect(abs(segments[0].lastFragmentDuration - 0.2) < 1e-9)
        #expect(segments[0].lastFragmentIndependent == false)
    }

    @Test func nothingToFinishBeforeTheFirstFrame() {
        var segmenter = Segmenter(configuration: .init(segmentDuration: 2, frameDuration: Self.frame))
        #expect(segmenter.finish().isEmpty)
    }
}

@Suite struct SegmenterGridTests {
    /// 1 s segments at 30 fps; the frames on two grid points were dropped, so their keyframes come a frame late.
    @Test func aSegmentThatStartsAFrameLateStillEndsOnTheGrid() {
        var segmenter = Segmenter(configuration: .init(segmentDuration: 1, frameDuration: 1.0 / 30))
        var closed: [Segmenter.ClosedSegment] = []
        let dropped: Set<Int> = [30, 31, 60]
        for frame in 0..<120 where !dropped.contains(frame) {
            // The encoder forces an IDR on the first frame at or past each grid point.
            let keyframe = frame % 30 == 0 || frame == 32 || frame == 61
            for event in segmenter.accept(kind: .video, time: Double(frame) / 30, isKeyframe: keyframe) {
                if case .segmentEnded(let segment) = event { closed.append(segment) }
            }
        }
        #expect(closed.map { Int(($0.start * 30).rounded()) } == [0, 32, 61])
        #expect(closed.map { Int(($0.duration * 30).rounded()) } == [32, 29, 29])
    }

    @Test func whenTheFirstFramesAreDroppedTheGridStillStartsAtZero() {
        var segmenter = Segmenter(configuration: .init(segmentDuration: 1, frameDuration: 1.0 / 30))
        var closed: [Segmenter.ClosedSegment] = []
        for frame in 2..<70 where frame != 30 {
            let keyframe = frame == 2 || frame == 31 || frame == 60
            for event in segmenter.accept(kind: .video, time: Double(frame) / 30, isKeyframe: keyframe) {
                if case .segmentEnded(let segment) = event { closed.append(segment) }
            }
        }
        #expect(closed.map { Int(($0.start * 30).rounded()) } == [2, 31])
        #expect(closed.map { Int(($0.duration * 30).rounded()) } == [29, 29])
    }
}
