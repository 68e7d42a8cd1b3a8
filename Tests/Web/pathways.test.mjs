// The web player's twin-origin helpers (content steering pathways), run under Node's own test
// runner: `node --test Tests/Web`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { onPathway, parsePathways } from "../../web/player/pathways.js";
import { parseSound, parseVariants } from "../../web/player/playlists.js";

const steered = [
    "#EXTM3U",
    "#EXT-X-VERSION:9",
    "#EXT-X-INDEPENDENT-SEGMENTS",
    '#EXT-X-CONTENT-STEERING:SERVER-URI="/steering/demo",PATHWAY-ID="a"',
    '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio-a",NAME="Sound",DEFAULT=YES,AUTOSELECT=YES,URI="http://a.example:8080/live/demo/audio/media.m3u8"',
    '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio-b",NAME="Sound",DEFAULT=YES,AUTOSELECT=YES,URI="http://b.example:8080/live/demo/audio/media.m3u8"',
    '#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,AUDIO="audio-a",PATHWAY-ID="a"',
    "http://a.example:8080/live/demo/360p/media.m3u8",
    '#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,AUDIO="audio-a",PATHWAY-ID="a"',
    "http://a.example:8080/live/demo/180p/media.m3u8",
    '#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,AUDIO="audio-b",PATHWAY-ID="b"',
    "http://b.example:8080/live/demo/360p/media.m3u8",
    '#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,AUDIO="audio-b",PATHWAY-ID="b"',
    "http://b.example:8080/live/demo/180p/media.m3u8",
    "",
].join("\n");

test("the pathways of a steered playlist, and where each one's addresses start", () => {
    const pathways = parsePathways(parseVariants(steered, "http://a.example:8080/live/demo/index.m3u8"));
    assert.deepEqual(JSON.parse(JSON.stringify(pathways)), {
        ids: ["a", "b"],
        prefixes: { a: "http://a.example:8080", b: "http://b.example:8080" },
    });
});

test("a file's address moves to another pathway, and stays on its own", () => {
    const pathways = { ids: ["a", "b"], prefixes: { a: "http://a.example:8080", b: "http://b.example:8080" } };
    assert.equal(onPathway("http://a.example:8080/live/demo/360p/seg897851722.2.m4s", pathways, "b"),
        "http://b.example:8080/live/demo/360p/seg897851722.2.m4s");
    assert.equal(onPathway("http://b.example:8080/live/demo/index.m3u8?session=1", pathways, "b"),
        "http://b.example:8080/live/demo/index.m3u8?session=1");
    // Not any pathway's: unchanged.
    assert.equal(onPathway("http://c.example/live/demo/index.m3u8", pathways, "b"), "http://c.example/live/demo/index.m3u8");
    assert.equal(onPathway("http://a.example:8080/x", null, "b"), "http://a.example:8080/x");
});

test("ports that end alike are told apart: a pathway's start ends before the path", () => {
    const variants = parseVariants([
        "#EXTM3U",
        '#EXT-X-STREAM-INF:BANDWIDTH=1,PATHWAY-ID="a"',
        "http://127.0.0.1:8080/live/demo/media.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=1,PATHWAY-ID="b"',
        "http://127.0.0.1:9080/live/demo/media.m3u8",
    ].join("\n"), "http://127.0.0.1:8080/live/demo/index.m3u8");
    const pathways = parsePathways(variants);
    assert.deepEqual({ ...pathways.prefixes }, { a: "http://127.0.0.1:8080", b: "http://127.0.0.1:9080" });
});

test("one origin has no pathways", () => {
    const variants = parseVariants("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmedia.m3u8\n", "http://a.example/live/demo/index.m3u8");
    assert.equal(parsePathways(variants), null);
});

test("each pathway's sound is its own group's", () => {
    const base = "http://a.example:8080/live/demo/index.m3u8";
    assert.equal(parseSound(steered, base, "a"), "http://a.example:8080/live/demo/audio/media.m3u8");
    assert.equal(parseSound(steered, base, "b"), "http://b.example:8080/live/demo/audio/media.m3u8");
});
