// The web player's playlist reading (web/player/playlists.js) and the units its MSE engine appends
// (web/player/units.js), with exact values, under Node's own test runner: `node --test Tests/Web`.
import { readFileSync } from "node:fs";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
    attribute,
    audioCodecPrefixes,
    audioCodecs,
    blockingURL,
    parseMediaPlaylist,
    parseSteering,
    parseVariants,
    playableVariants,
    videoCodecs,
} from "../../web/player/playlists.js";
import { follows, isAfter, mediaUnits } from "../../web/player/units.js";

const base = "http://origin.example:8080/live/demo/720p/media.m3u8";

// A Low-Latency playlist: a restarted broadcast's segment 41 (whole, its parts gone), segment 42
// after a discontinuity with its two parts, and two parts of segment 43 being made.
const lowLatency = [
    "#EXTM3U",
    "#EXT-X-VERSION:9",
    "#EXT-X-TARGETDURATION:2",
    "#EXT-X-PART-INF:PART-TARGET=0.5",
    "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.5",
    "#EXT-X-MEDIA-SEQUENCE:41",
    '#EXT-X-MAP:URI="init.mp4"',
    "#EXT-X-PROGRAM-DATE-TIME:2026-11-26T10:00:00.000Z",
    "#EXTINF:2.000,",
    "seg41.m4s",
    "#EXT-X-DISCONTINUITY",
    '#EXT-X-MAP:URI="init-42.mp4"',
    "#EXT-X-PROGRAM-DATE-TIME:2026-11-26T10:00:05.000Z",
    '#EXT-X-PART:DURATION=0.5,URI="seg42.0.m4s",INDEPENDENT=YES',
    '#EXT-X-PART:DURATION=1.5,URI="seg42.1.m4s"',
    "#EXTINF:2.000,",
    "seg42.m4s",
    '#EXT-X-PART:DURATION=0.5,URI="seg43.0.m4s",INDEPENDENT=YES',
    '#EXT-X-PART:DURATION=0.5,URI="seg43.1.m4s"',
    '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg43.2.m4s"',
    "",
].join("\n");

const start = Date.parse("2026-11-26T10:00:00.000Z");
const restart = Date.parse("2026-11-26T10:00:05.000Z");
const at = (name) => "http://origin.example:8080/live/demo/720p/" + name;

test("a tag's attributes, quoted or not", () => {
    const line = '#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360';
    assert.equal(attribute(line, "BANDWIDTH"), "900000");
    assert.equal(attribute(line, "CODECS"), "avc1.64001f,mp4a.40.2");
    assert.equal(attribute(line, "RESOLUTION"), "640x360");
    assert.equal(attribute(line, "AUDIO"), null);
});

test("a Low-Latency media playlist: segments, parts, the server's promises and what is being made", () => {
    const playlist = parseMediaPlaylist(lowLatency, base);
    assert.equal(playlist.targetDuration, 2);
    assert.equal(playlist.mediaSequence, 41);
    assert.equal(playlist.partTarget, 0.5);
    assert.equal(playlist.partHoldBack, 1.5);
    assert.equal(playlist.canBlockReload, true);
    assert.equal(playlist.ended, false);
    assert.equal(playlist.init, at("init.mp4"));
    assert.deepEqual(
        playlist.segments.map((s) => [s.sequence, s.uri, s.duration, s.dateTime, s.discontinuity, s.init, s.parts.length]),
        [
            [41, at("seg41.m4s"), 2, start, false, at("init.mp4"), 0],
            [42, at("seg42.m4s"), 2, restart, true, at("init-42.mp4"), 2],
        ]
    );
    assert.deepEqual(playlist.segments[1].parts, [
        { uri: at("seg42.0.m4s"), duration: 0.5, independent: true },
        { uri: at("seg42.1.m4s"), duration: 1.5, independent: false },
    ]);
    assert.deepEqual(playlist.openParts.map((p) => p.uri), [at("seg43.0.m4s"), at("seg43.1.m4s")]);
    assert.equal(playlist.openDateTime, restart + 2000);
    assert.equal(playlist.openDiscontinuity, false);
    assert.equal(playlist.openInit, at("init-42.mp4"));
});

test("an ended playlist, and text that is not a playlist", () => {
    const ended = parseMediaPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:3.5,\nseg0.ts\n#EXT-X-ENDLIST\n", base);
    assert.equal(ended.ended, true);
    assert.equal(ended.targetDuration, 4);
    assert.deepEqual(ended.segments.map((s) => [s.sequence, s.duration, s.dateTime, s.init]), [[0, 3.5, null, null]]);
    assert.throws(() => parseMediaPlaylist("<html>", base), /not a playlist/);
    assert.throws(() => parseVariants("", base), /not a playlist/);
});

test("onair's markers are read from EXT-X-DATERANGE; other date ranges are not", () => {
    const text = [
        "#EXTM3U",
        "#EXT-X-TARGETDURATION:2",
        '#EXT-X-DATERANGE:ID="m1-1795000000500",CLASS="org.onair.chapter",START-DATE="2026-11-18T11:06:40.500Z",X-TITLE="Slide 12, intro"',
        '#EXT-X-DATERANGE:ID="ad1",CLASS="com.example.ad",START-DATE="2026-11-18T11:06:41.000Z"',
        "#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:40.000Z",
        "#EXTINF:2.000,",
        "seg0.m4s",
        "",
    ].join("\n");
    assert.deepEqual(parseMediaPlaylist(text, base).markers, [
        { id: "m1-1795000000500", start: 1795000000500, title: "Slide 12, intro" },
    ]);
    assert.deepEqual(parseMediaPlaylist("#EXTM3U\n#EXTINF:2,\nseg0.ts\n", base).markers, []);
});

test("the units to append: whole segments, then parts, each with its moment and init segment", () => {
    const units = mediaUnits(parseMediaPlaylist(lowLatency, base));
    assert.deepEqual(
        units.map((u) => [u.sequence, u.part, u.duration, u.independent, u.dateTime, u.discontinuity, u.init]),
        [
            [41, null, 2, true, start, false, at("init.mp4")],
            [42, 0, 0.5, true, restart, true, at("init-42.mp4")],
            [42, 1, 1.5, false, restart + 500, false, at("init-42.mp4")],
            [43, 0, 0.5, true, restart + 2000, false, at("init-42.mp4")],
            [43, 1, 0.5, false, restart + 2500, false, at("init-42.mp4")],
        ]
    );
});

test("which unit comes after another, and which follows it with nothing between", () => {
    const whole = (sequence) => ({ sequence, part: null });
    const part = (sequence, index) => ({ sequence, part: index });
    assert.equal(isAfter(part(42, 1), part(42, 0)), true);
    assert.equal(isAfter(part(42, 0), part(42, 1)), false);
    assert.equal(isAfter(part(42, 1), whole(42)), false, "a whole segment covers its parts");
    assert.equal(isAfter(whole(43), part(42, 1)), true);
    assert.equal(follows(part(42, 1), part(42, 0)), true);
    assert.equal(follows(part(42, 2), part(42, 0)), false);
    assert.equal(follows(whole(43), part(42, 3)), true);
    assert.equal(follows(part(43, 0), whole(42)), true);
    assert.equal(follows(part(43, 1), whole(42)), false);
    assert.equal(follows(whole(44), whole(42)), false);
});

test("variants lowest bit rate first, with names, sizes and average rates", () => {
    const text = [
        "#EXTM3U",
        '#EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720',
        "720p/media.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360',
        "360p/media.m3u8",
        "#EXT-X-STREAM-INF:BANDWIDTH=100000",
        "sound.m3u8",
    ].join("\n");
    const variants = parseVariants(text, "http://origin.example:8080/live/demo/index.m3u8");
    assert.deepEqual(
        variants.map((v) => [v.name, v.uri, v.width, v.height, v.bandwidth, v.average, v.codecs, v.pathway]),
        [
            ["variant 3", "http://origin.example:8080/live/demo/sound.m3u8", 0, 0, 100000, 100000, null, null],
            ["360p", "http://origin.example:8080/live/demo/360p/media.m3u8", 640, 360, 900000, 900000, "avc1.64001e,mp4a.40.2", null],
            ["720p", "http://origin.example:8080/live/demo/720p/media.m3u8", 1280, 720, 2500000, 2000000, "avc1.64001f,mp4a.40.2", null],
        ]
    );
    assert.deepEqual(parseVariants(lowLatency, base), []);
});

test("content steering, codecs by kind, and the blocking reload's address", () => {
    const steering = parseSteering('#EXTM3U\n#EXT-X-CONTENT-STEERING:SERVER-URI="/steering/demo",PATHWAY-ID="b"\n', base);
    assert.deepEqual(steering, { uri: "http://origin.example:8080/steering/demo", pathway: "b" });
    assert.equal(parseSteering("#EXTM3U\n", base), null);
    assert.equal(videoCodecs("avc1.64001f,mp4a.40.2"), "avc1.64001f");
    assert.equal(audioCodecs("avc1.64001f, mp4a.40.2"), " mp4a.40.2");
    assert.equal(
        blockingURL(base + "?token=x", parseMediaPlaylist(lowLatency, base)),
        base + "?token=x&_HLS_msn=43&_HLS_part=2"
    );
});

test("codecs by kind follow the origin's rule, AV1 and Opus included", () => {
    assert.equal(videoCodecs("av01.0.08M.08,opus"), "av01.0.08M.08");
    assert.equal(audioCodecs("av01.0.08M.08,ec-3,FLAC"), "ec-3,FLAC");
    const swift = readFileSync(new URL("../../Sources/Runtime/VideoCodec.swift", import.meta.url), "utf8");
    const list = swift.match(/audioPrefixes = \[([^\]]*)\]/)[1].split(",").map((name) => name.trim().replaceAll('"', ""));
    assert.deepEqual(audioCodecPrefixes, list);
});

test("of a size in two codecs, the cheaper one the browser plays", () => {
    const ladder = `#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=2600000,AVERAGE-BANDWIDTH=2400000,CODECS="av01.0.08M.08,mp4a.40.2",RESOLUTION=1920x1080
1080p-av1/media.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=5100000,AVERAGE-BANDWIDTH=4800000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080
1080p/media.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=1000000,AVERAGE-BANDWIDTH=900000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360
360p/media.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=300000
third-party/media.m3u8
`;
    const variants = parseVariants(ladder, base);
    const names = (list) => list.map((variant) => variant.uri.split("/").slice(-2)[0]);
    const everything = () => true;
    const noAV1 = (codecs) => !codecs.startsWith("av01");
    assert.deepEqual(names(playableVariants(variants, everything)), ["third-party", "360p", "1080p-av1"]);
    assert.deepEqual(names(playableVariants(variants, noAV1)), ["third-party", "360p", "1080p"]);
    // Nothing playable: the list as it was, for the browser's own HLS.
    const described = variants.filter((variant) => variant.codecs);
    assert.deepEqual(playableVariants(described, () => false), described);
});
