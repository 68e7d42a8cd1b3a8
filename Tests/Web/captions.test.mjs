// The watch page's captions: a multivariant playlist's subtitle rendition, and the cues of
// onair's WebVTT files in media time. Run under Node's own test runner: `node --test Tests/Web`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseWebVTT, placeCues } from "../../web/player/caption-track.js";
import { parseSubtitles } from "../../web/player/playlists.js";

test("the subtitle rendition the variants name, with its name and language", () => {
    const text = [
        "#EXTM3U",
        '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="other",NAME="Other",LANGUAGE="fr",URI="fr/media.m3u8"',
        '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="German",LANGUAGE="de",DEFAULT=YES,URI="captions/media.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=1000,SUBTITLES="subs"',
        "main/media.m3u8",
    ].join("\n");
    assert.deepEqual(parseSubtitles(text, "http://h/live/c/index.m3u8", null), {
        uri: "http://h/live/c/captions/media.m3u8",
        name: "German",
        language: "de",
    });
    assert.equal(parseSubtitles("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmedia.m3u8\n", "http://h/", null), null);
});

test("cues in media time, moved by the file's timestamp map", () => {
    const file = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00:01.000\n\n00:00:03.432 --> 00:00:05.900\n<v Ana>Tom &amp; Jerry\n\n101:01:01.001 --> 101:01:02.000\nlate\nsecond line\n";
    assert.deepEqual(parseWebVTT(file), [
        { start: 3.432, end: 5.9, text: "<v Ana>Tom &amp; Jerry" },
        { start: 363661.001, end: 363662, text: "late\nsecond line" },
    ]);
    // Another map: cue times shifted by MPEGTS / 90 kHz less LOCAL.
    const shifted = parseWebVTT("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:00:00:00.000,MPEGTS:900000\n\n00:01.000 --> 00:02.500\nHi\n");
    assert.deepEqual(shifted, [{ start: 11, end: 12.5, text: "Hi" }]);
    assert.deepEqual(parseWebVTT("not a caption file"), []);
});

test("captions that come after their moment began are shown from now, as long and as far apart as said", () => {
    const cue = (start, end, text = "x") => ({ start, end, text });
    // Came before their moment: at their own times.
    assert.deepEqual(placeCues([cue(10, 10.8), cue(11, 11.8)], 9.5, 4), [cue(10, 10.8), cue(11, 11.8)]);
    // One file's two captions, 1.5 s and 0.5 s late (a Low-Latency player is less than a segment
    // behind live): both 1.5 s later, the first from now, one after the other as said.
    assert.deepEqual(placeCues([cue(10, 10.75, "a"), cue(11, 11.75, "b")], 11.5, 4),
        [cue(11.5, 12.25, "a"), cue(12.5, 13.25, "b")]);
    // Exactly as late as allowed: moved; later than that (the past), or not live (late 0): as they are.
    assert.deepEqual(placeCues([cue(10, 10.5)], 14, 4), [cue(14, 14.5)]);
    assert.deepEqual(placeCues([cue(10, 10.5), cue(13, 13.5)], 14.25, 4), [cue(10, 10.5), cue(14.25, 14.75)]);
    assert.deepEqual(placeCues([cue(10, 10.75)], 10.5, 0), [cue(10, 10.75)]);
    // On at this very moment: begins now, as it is.
    assert.deepEqual(placeCues([cue(10, 10.75)], 10, 4), [cue(10, 10.75)]);
    assert.deepEqual(placeCues([], 10, 4), []);
});
