import HLSModel
import Foundation
import Synchronization
import Testing

@testable import HLS
import Runtime

/// The rewind window (`--dvr`): what it lists, when its files go, and the window from a point.
@Suite struct DVRWindowTests {
    static let start: Int64 = 1_795_000_000_000

    static func window(seconds: Double, count: Int, from first: Int = 0) -> (DVRWindow, [[String]]) {
        var window = DVRWindow(seconds: seconds, version: 6, targetDuration: 2)
        var expired: [[String]] = []
        for sequence in first..<(first + count) {
            expired.append(
                window.append(
                    sequence: sequence, file: "seg\(sequence).m4s", duration: 2,
                    programDateTime: start + Int64(sequence - first) * 2000, discontinuity: false, map: "init.mp4",
                    format: .fmp4, missingDuration: 2))
        }
        return (window, expired)
    }

    @Test func itListsTheLastDurationUnderTheLiveNumbersAndSlides() {
        let (window, _) = Self.window(seconds: 10, count: 8)
        // 10 s of 2 s segments: the newest 5, numbered as live, the head sliding (no PLAYLIST-TYPE).
        #expect(window.playlist.mediaSequence == 3)
        #expect(window.playlist.segments.map(\.uri) == (3...7).map { "seg\($0).m4s" })
        #expect(window.playlist.playlistType == nil)
        #expect(window.playlist.initSegmentURI == "init.mp4")
        #expect(window.playlist.segments.allSatisfy { $0.map == nil })
        let text = window.playlist.render()
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:3\n"))
        #expect(!text.contains("PLAYLIST-TYPE"))
        #expect(text.contains("#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(milliseconds: Self.start + 6000))\n"))
    }

    @Test func aFileGoesThreeTargetDurationsOfMediaAfterItLeftThePlaylist() {
        let (_, expired) = Self.window(seconds: 10, count: 12)
        // seg0 leaves when seg5 is listed (media time 12 s), and goes 6 s later, when seg8 is listed.
        #expect(expired.prefix(8).allSatisfy { $0.isEmpty })
        #expect(expired[8] == ["seg0.m4s"])
        #expect(expired[9] == ["seg1.m4s"])
        #expect(expired[11] == ["seg3.m4s"])
    }

    @Test func numbersItCouldNotKeepAreGapsSoTheNumbersStayMatched() {
        var window = DVRWindow(seconds: 60, version: 6, targetDuration: 2)
        _ = window.append(
            sequence: 4, file: "seg4.m4s", duration: 2, programDateTime: Self.start, discontinuity: false,
            map: "init.mp4", format: .fmp4, missingDuration: 2)
        // 5 and 6 never reached the sink; 7 could not be written.
        _ = window.append(
            sequence: 7, file: nil, duration: 1.5, programDateTime: Self.start + 8000, discontinuity: false,
            map: "init.mp4", format: .fmp4, missingDuration: 2)
        let segments = window.playlist.segments
        #expect(segments.map(\.uri) == ["seg4.m4s", "seg5.m4s", "seg6.m4s", "seg7.m4s"])
        #expect(segments.map(\.gap) == [false, true, true, true])
        #expect(segments.map(\.programDateTime) == [0, 4000, 6000, 8000].map { Self.start + $0 })
        #expect(segments.map(\.duration) == [2, 2, 2, 1.5])
        // EXT-X-GAP needs version 8.
        #expect(window.playlist.version == 8)
        #expect(window.playlist.render().contains("#EXT-X-GAP\n"))
        // A number already listed changes nothing.
        #expect(
            window.append(
                sequence: 7, file: "seg7.m4s", duration: 2, programDateTime: 0, discontinuity: false, map: nil,
                format: .fmp4, missingDuration: 2) == [])
        #expect(window.playlist.segments.count == 4)
    }

    @Test func aWindowThatEndedGoesOnWhenItsChannelDoes() {
        var (window, _) = Self.window(seconds: 20, count: 3)
        window.end()
        #expect(window.playlist.ended && window.playlist.render().hasSuffix("#EXT-X-ENDLIST\n"))
        // The publisher comes back 2 numbers on and 24 s later (its numbers come from its start on the
        // epoch, its wall clock from its own), after a discontinuity: the hole is gaps, and no ENDLIST.
        _ = window.append(
            sequence: 5, file: "seg5.m4s", duration: 2, programDateTime: Self.start + 30_000, discontinuity: true,
            map: "init5.mp4", format: .fmp4, missingDuration: 2)
        #expect(!window.playlist.ended && !window.playlist.render().contains("ENDLIST"))
        #expect(window.playlist.segments.map(\.uri) == (0...5).map { "seg\($0).m4s" })
        #expect(window.playlist.segments.map(\.gap) == [false, false, false, true, true, false])
        #expect(
            window.playlist.segments.last?.discontinuity == true && window.playlist.segments.last?.map == "init5.mp4")
        // The gaps follow the first run's last segment; the clock jumps at the discontinuity.
        #expect(
            window.playlist.segments.map(\.programDateTime).map { $0 - Self.start } == [
                0, 2000, 4000, 6000, 8000, 30_000,
            ])
    }

    @Test func aJumpLongerThanTheWindowEmptiesItInsteadOfListingEveryNumber() {
        // 10 s of 2 s segments; the publisher jumps its numbers by 2^50 - 10.
        var (window, _) = Self.window(seconds: 10, count: 3)
        let far = 1 << 50
        let gone = window.append(
            sequence: far, file: "seg\(far).m4s", duration: 2, programDateTime: Self.start + 60_000,
            discontinuity: true,
            map: "init.mp4", format: .fmp4, missingDuration: 2)
        // Room for 10 / 2 + 1 = 6 gaps: the window slides over them, and holds the last 4 and the new one.
        #expect(window.playlist.segments.map(\.uri) == ((far - 4)...far).map { "seg\($0).m4s" })
        #expect(window.playlist.segments.map(\.gap) == [true, true, true, true, false])
        #expect(window.playlist.mediaSequence == far - 4 && window.lastSequence == far)
        // The three files listed before left with the jump, and go once their grace has passed.
        #expect(gone == ["seg0.m4s", "seg1.m4s", "seg2.m4s"])
        #expect(window.playlist.segments.last?.programDateTime == Self.start + 60_000)
    }

    @Test func segmentsFarShorterThanTheTargetDurationGetAShorterWindowNotAHugePlaylist() {
        // Two hours of window, TARGETDURATION 1, segments of 10 ms: once 720,000 entries, each added
        // one at a time with the whole window summed and copied again (a core busy for minutes).
        var window = DVRWindow(seconds: 7200, version: 6, targetDuration: 1)
        #expect(window.maximumEntries == 14_402)
        var gone = 0
        for sequence in 0..<20_000 {
            gone +=
                window.append(
                    sequence: sequence, file: "seg\(sequence).m4s", duration: 0.01,
                    programDateTime: Self.start + Int64(sequence) * 10, discontinuity: false, map: "init.mp4",
                    format: .fmp4, missingDuration: 0.01
                ).count
        }
        #expect(window.playlist.segments.count == 14_402 && !window.isEmpty && !window.isEnded)
        #expect(window.playlist.mediaSequence == 20_000 - 14_402)
        // Then a jump to 10,000,000: gaps up to the bound, listed at once, and the new segment last.
        gone +=
            window.append(
                sequence: 10_000_000, file: "seg10000000.m4s", duration: 0.01, programDateTime: Self.start + 400_000,
                discontinuity: false, map: "init.mp4", format: .fmp4, missingDuration: 0.01
            ).count
        #expect(window.playlist.segments.count == 14_402)
        #expect(window.playlist.segments.last?.uri == "seg10000000.m4s")
        #expect(window.playlist.segments.dropLast().allSatisfy { $0.gap })
        #expect(window.playlist.mediaSequence == 10_000_000 - 14_401)
        #expect(window.lastSequence == 10_000_000)
        // Every file listed before the jump has left, and its grace (3 s of media) has passed.
        #expect(gone == 20_000)
    }

    @Test func aFullWindowHoldsLittleMoreThanItListsForHours() {
        // 30 min of 2 s segments (900 listed), fed four hours of them: once full, it holds its 900
        // and at most 111 that left (the slack, 900 / 8 = 112, is let go of as it is reached), and
        // its list's room stays about that, not twice the window (2026-12-07: 1,800 held, the room
        // doubled to 1,800 and more, half an hour after the window filled).
        var window = DVRWindow(seconds: 1800, version: 6, targetDuration: 2)
        var mostHeld = 0
        var mostRoom = 0
        for sequence in 0..<7200 {
            _ = window.append(
                sequence: sequence, file: "seg\(sequence).m4s", duration: 2,
                programDateTime: Self.start + Int64(sequence) * 2000, discontinuity: false, map: "init.mp4",
                format: .fmp4, missingDuration: 2)
            if sequence >= 900 {
                mostHeld = max(mostHeld, window.held.segments)
                mostRoom = max(mostRoom, window.held.room)
            }
        }
        #expect(window.playlist.segments.count == 900)
        #expect(window.playlist.mediaSequence == 7200 - 900)
        #expect(mostHeld == 900 + 111)
        #expect(mostRoom >= mostHeld && mostRoom < 1080)
        #expect(DVRWindow.slack(listing: 900) == 112)
        #expect(DVRWindow.slack(listing: 40) == 16 && DVRWindow.slack(listing: 5) == 5)
        #expect(DVRWindow.slack(listing: 0) == 0)
    }

    @Test func aDiscontinuityIsCountedWhenItsSegmentLeavesAsLiveCountsIt() {
        var window = DVRWindow(seconds: 6, version: 6, targetDuration: 2, discontinuitySequence: 2)
        for sequence in 0..<6 {
            _ = window.append(
                sequence: sequence, file: "seg\(sequence).m4s", duration: 2,
                programDateTime: Self.start + Int64(sequence) * 2000, discontinuity: sequence == 2,
                map: sequence < 2 ? "init.mp4" : "init2.mp4", format: .fmp4, missingDuration: 2)
            if sequence == 2 {
                #expect(window.playlist.segments.map(\.discontinuity) == [false, false, true])
                #expect(window.playlist.segments.last?.map == "init2.mp4")
            }
        }
        // seg2 (after the discontinuity, with its own init segment) has left: counted, and its map is the head's.
        #expect(window.playlist.mediaSequence == 3)
        #expect(window.playlist.discontinuitySequence == 3)
        #expect(window.playlist.initSegmentURI == "init2.mp4")
        #expect(window.playlist.segments.allSatisfy { !$0.discontinuity && $0.map == nil })
    }

    @Test func theWindowFromAPointStartsThereButHoldsThreeTargetDurations() {
        let (window, _) = Self.window(seconds: 60, count: 20)
        let playlist = window.playlist
        #expect(playlist.starting(at: 12, keeping: 6).mediaSequence == 12)
        #expect(playlist.starting(at: 12, keeping: 6).segments.first?.uri == "seg12.m4s")
        #expect(playlist.starting(at: 12, keeping: 6).segments.count == 8)
        // Too near the end: the last 6 s.
        #expect(playlist.starting(at: 19, keeping: 6).mediaSequence == 17)
        // Gone from the window, or before it: the whole window.
        #expect(playlist.starting(at: 0, keeping: 6) == playlist)
        #expect(playlist.starting(at: 999, keeping: 6).segments.count == 3)
    }

    @Test func theMultivariantPlaylistPointsAtTheWindowsWithTheirQueries() {
        let playlist = MultivariantPlaylist(
            version: 6,
            variants: [
                .init(
                    uri: "720p/media.m3u8?session=ab", bandwidth: 1, averageBandwidth: 1, codecs: [], width: 0,
                    height: 0, frameRate: 0),
                .init(
                    uri: "media.m3u8", bandwidth: 1, averageBandwidth: 1, codecs: [], width: 0, height: 0, frameRate: 0),
            ],
            audio: [.init(groupID: "a", name: "Sound", uri: "audio/media.m3u8", channels: 2)])
        let window = playlist.pointing(to: .dvrMediaPlaylist).adding(query: "from=12")
        #expect(window.variants.map(\.uri) == ["720p/dvr-media.m3u8?session=ab&from=12", "dvr-media.m3u8?from=12"])
        #expect(window.audio.map(\.uri) == ["audio/dvr-media.m3u8?from=12"])
    }

    @Test func theWindowsFolderNamesItsProcess() {
        #expect(DVRFolder.ownerProcess(of: "demo.1234", channel: "demo") == 1234)
        #expect(DVRFolder.ownerProcess(of: "demo.12a", channel: "demo") == nil)
        #expect(DVRFolder.ownerProcess(of: "demo-2.1234", channel: "demo") == nil)
        #expect(DVRFolder.ownerProcess(of: "demo.", channel: "demo") == nil)
        #expect(DVRFolder.describe(seconds: 7200) == "2 h")
        #expect(DVRFolder.describe(seconds: 5400) == "90 min")
        #expect(DVRFolder.describe(seconds: 45) == "45 s")
    }
}

/// The rewind window's sink: files on disk under their live names, the playlist written before a file goes.
@Suite struct DVRSinkTests {
    @Test func aLinkPlantedUnderTheFoldersNameIsNeverFollowed() throws {
        let root = DirectoryMirrorTests.folder()
        let elsewhere = DirectoryMirrorTests.folder()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        for folder in [root, elsewhere] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        // Someone's folder, even one carrying onair's mark, behind a link named as this process's window.
        try Data().write(to: elsewhere.appendingPathComponent(".onair-dvr"))
        try Data("theirs".utf8).write(to: elsewhere.appendingPathComponent("notes.txt"))
        let planted = root.appendingPathComponent("demo.\(getpid())")
        try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: elsewhere)
        #expect(throws: (any Error).self) {
            try DVRFolder.ofThisProcess(root: root, channel: "demo", seconds: 60).makeAnew(channel: "demo")
        }
        #expect(throws: (any Error).self) {
            try DVRFolder.ofThisProcess(root: root, channel: "demo", seconds: 60).prepare()
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == [".onair-dvr", "notes.txt"])
        // Without the link, the folder is made, this user's, 0700, with its mark.
        try FileManager.default.removeItem(at: planted)
        let window = DVRFolder.ofThisProcess(root: root, channel: "demo", seconds: 60)
        try window.makeAnew(channel: "demo")
        let attributes = try FileManager.default.attributesOfItem(atPath: window.url.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        #expect(FileManager.default.fileExists(atPath: window.url.appendingPathComponent(".onair-dvr").path))
    }

    @Test func aLaddersRenditionsMakeTheirFolderAtOnceAndNoneIsRefused() throws {
        // An origin's channel makes its window's folder with its first segment, from each rendition's
        // thread at once. One of them saw the folder another had just made before its mark, and
        // refused it (`dvr_failed` at a soak's start, 2026-12-07): its first segment was a gap.
        for _ in 0..<100 {
            let root = DirectoryMirrorTests.folder()
            defer { try? FileManager.default.removeItem(at: root) }
            let window = DVRFolder.ofThisProcess(root: root, channel: "demo", seconds: 60)
            let refused = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                do { try window.prepare() } catch { refused.withLock { $0 += 1 } }
            }
            #expect(refused.withLock { $0 } == 0)
            #expect(FileManager.default.fileExists(atPath: window.url.appendingPathComponent(".onair-dvr").path))
        }
    }

    @Test func itKeepsTheWindowOnDiskAndDeletesWhatLeftIt() throws {
        let folder = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sink = try DVRSink(folder: folder, seconds: 10) { _, _ in }
        let store = LiveStoreTests.store(playlistSize: 3)
        sink.receive(try #require(store.setInitSegment([9, 9])), backlog: RecordingSinkTests.idle)
        for publication in LiveStoreTests.publish(store, count: 12, bytes: 10) {
            sink.receive(publication, backlog: RecordingSinkTests.idle)
        }
        let text = try String(contentsOf: folder.appendingPathComponent("dvr-media.m3u8"), encoding: .utf8)
        let playlist = try #require(MediaPlaylist.parse(text))
        #expect(playlist.mediaSequence == 7)
        #expect(playlist.segments.map(\.uri) == (7...11).map { "seg\($0).m4s" })
        // seg0 to seg3 are gone; seg4 to seg6 wait out their grace; the init segment stays.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == ["dvr-media.m3u8", "init.mp4"] + (4...11).map { "seg\($0).m4s" }.sorted())
        #expect(try Data(contentsOf: folder.appendingPathComponent("seg11.m4s")) == Data(repeating: 11, count: 10))
        sink.receive(store.end(), backlog: RecordingSinkTests.idle)
        let ended = try String(contentsOf: folder.appendingPathComponent("dvr-media.m3u8"), encoding: .utf8)
        #expect(ended.hasSuffix("#EXT-X-ENDLIST\n"))
    }

    @Test func theWindowWrittenIsPostedOnTheFoldersBoardForEveryValueOfTheFolder() throws {
        let root = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let board = DVRFolder.Windows()
        let window = DVRFolder.ofThisProcess(root: root, channel: "demo", seconds: 10, windows: board)
        let sink = DVRSink(window: window, rendition: "720p") { _, _ in }
        let store = LiveStoreTests.store(playlistSize: 3)
        sink.receive(try #require(store.setInitSegment([9, 9])), backlog: RecordingSinkTests.idle)
        #expect(board.window(of: "720p") == nil)
        for publication in LiveStoreTests.publish(store, count: 12, bytes: 10) {
            sink.receive(publication, backlog: RecordingSinkTests.idle)
        }
        // Another value of the same folder (the server's) reads what the sink wrote, as it is on disk.
        let read = DVRFolder.ofThisProcess(root: root, channel: "demo", seconds: 10, windows: board)
        let posted = try #require(read.windows.window(of: "720p"))
        let text = try String(
            contentsOf: window.folder(of: "720p").appendingPathComponent("dvr-media.m3u8"), encoding: .utf8)
        #expect(posted.playlist.render() == text)
        #expect(posted.playlist.segments.map(\.uri) == (7...11).map { "seg\($0).m4s" })
        #expect(read.windows.window(of: nil) == nil)
        read.remove()
        #expect(board.window(of: "720p") == nil)
    }

    @Test func aFolderThatCannotBeWrittenIsSaidOnceAndListedAsGaps() throws {
        let folder = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let said = Mutex<[BroadcastEvent.Code]>([])
        let sink = try DVRSink(folder: folder, seconds: 60) { code, _ in said.withLock { $0.append(code) } }
        let store = LiveStoreTests.store(playlistSize: 3)
        sink.receive(try #require(store.setInitSegment([1])), backlog: RecordingSinkTests.idle)
        LiveStoreTests.publish(store, count: 1, bytes: 10).forEach {
            sink.receive($0, backlog: RecordingSinkTests.idle)
        }
        try FileManager.default.removeItem(at: folder)
        LiveStoreTests.publish(store, count: 2, from: 1, bytes: 10).forEach {
            sink.receive($0, backlog: RecordingSinkTests.idle)
        }
        #expect(said.withLock { $0 } == [BroadcastEvent.Code.dvrFailed])
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        LiveStoreTests.publish(store, count: 1, from: 3, bytes: 10).forEach {
            sink.receive($0, backlog: RecordingSinkTests.idle)
        }
        #expect(said.withLock { $0 } == [BroadcastEvent.Code.dvrFailed, .dvrRecovered])
        let playlist = try #require(
            MediaPlaylist.parse(
                try String(contentsOf: folder.appendingPathComponent("dvr-media.m3u8"), encoding: .utf8)))
        #expect(playlist.segments.map(\.gap) == [false, true, true, false])
        #expect(playlist.segments.map(\.uri) == (0...3).map { "seg\($0).m4s" })
    }
}
