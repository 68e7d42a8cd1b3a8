// The rewind bar's previews: reading a keyframe and its decoder's description from fMP4 boxes,
// and the I-frame playlist's byte ranges. Run under Node's own test runner: `node --test Tests/Web`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { boxes, decoderDescription, entryAt, firstSample } from "../../web/player/keyframes.js";
import { parseMediaPlaylist } from "../../web/player/playlists.js";

const be32 = (n) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const box = (type, content) => [...be32(8 + content.length), ...Buffer.from(type, "latin1"), ...content];
const fullBox = (type, flags, content) => box(type, [0, ...be32(flags).slice(1), ...content]);

/** One moof and mdat: a track run of `sizes`, its first sample flagged sync or not. */
function fragment(sizes, sync = true) {
    const trun = (offset) =>
        fullBox("trun", 0x001 | 0x004 | 0x200, [
            ...be32(sizes.length),
            ...be32(offset),
            ...be32(sync ? 0x02000000 : 0x01010000),
            ...sizes.flatMap(be32),
        ]);
    const traf = (offset) => box("traf", [...fullBox("tfhd", 0x020000, be32(1)), ...trun(offset)]);
    const mfhd = fullBox("mfhd", 0, be32(1));
    const moofSize = 8 + mfhd.length + traf(0).length;
    const data = sizes.flatMap((size, i) => new Array(size).fill(i + 1));
    return Uint8Array.from([...box("moof", [...mfhd, ...traf(moofSize + 8)]), ...box("mdat", data)]);
}

test("a fragment's first sample: its bytes, and whether a player may start there", () => {
    const bytes = fragment([5, 3]);
    assert.deepEqual(
        boxes(bytes).map((b) => b.type),
        ["moof", "mdat"]
    );
    assert.deepEqual(firstSample(bytes), { data: Uint8Array.from([1, 1, 1, 1, 1]), sync: true });
    assert.equal(firstSample(fragment([5], false)).sync, false);
    // Cut short before the sample's end: nothing.
    assert.equal(firstSample(fragment([5]).slice(0, -1)), null);
    assert.equal(firstSample(new Uint8Array(0)), null);
});

test("the decoder's description is the sample entry's avcC", () => {
    const avcC = [1, 0x64, 0, 0x1f, 0xff];
    const avc1 = box("avc1", [...new Array(78).fill(0), ...box("avcC", avcC), ...box("pasp", be32(1).concat(be32(1)))]);
    const stsd = fullBox("stsd", 0, [...be32(1), ...avc1]);
    const trak = box("trak", box("mdia", box("minf", box("stbl", stsd))));
    const init = Uint8Array.from([...box("ftyp", [...Buffer.from("iso6"), 0, 0, 0, 0]), ...box("moov", trak)]);
    assert.deepEqual(decoderDescription(init), Uint8Array.from(avcC));
    assert.equal(decoderDescription(Uint8Array.from(box("moov", []))), null);
});

test("an I-frame playlist's entries carry their byte ranges and wall times", () => {
    const text = [
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-TARGETDURATION:2",
        "#EXT-X-I-FRAMES-ONLY",
        "#EXT-X-MEDIA-SEQUENCE:7",
        '#EXT-X-MAP:URI="init.mp4"',
        "#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:46.000Z",
        "#EXTINF:2.000,",
        "#EXT-X-BYTERANGE:5816@0",
        "seg7.m4s",
        "#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:48.000Z",
        "#EXTINF:2.000,",
        "#EXT-X-BYTERANGE:6001@40",
        "seg8.m4s",
        "",
    ].join("\n");
    const playlist = parseMediaPlaylist(text, "http://example.com/live/demo/360p/dvr-iframes.m3u8");
    assert.deepEqual(
        playlist.segments.map((s) => [s.uri, s.sequence, s.byteRange, s.init]),
        [
            ["http://example.com/live/demo/360p/seg7.m4s", 7, { length: 5816, offset: 0 }, "http://example.com/live/demo/360p/init.mp4"],
            ["http://example.com/live/demo/360p/seg8.m4s", 8, { length: 6001, offset: 40 }, "http://example.com/live/demo/360p/init.mp4"],
        ]
    );
    const start = Date.parse("2026-11-18T11:06:46.000Z");
    // The keyframe shown at a moment is the last one at or before it; before the first, the first.
    assert.equal(entryAt(playlist.segments, start + 1999).sequence, 7);
    assert.equal(entryAt(playlist.segments, start + 2000).sequence, 8);
    assert.equal(entryAt(playlist.segments, start - 5000).sequence, 7);
    assert.equal(entryAt([], start), null);
    // A media playlist's segments have none.
    assert.equal(parseMediaPlaylist(text.replace(/#EXT-X-BYTERANGE:.*\n/g, ""), "http://example.com/").segments[0].byteRange, null);
});
