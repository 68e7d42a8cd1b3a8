// Previews while dragging the rewind bar: the picture at a moment of the rewind window, from the
// channel's I-frame playlist (`dvr-iframes.m3u8`, the smallest rung's). Each entry is a byte range
// of a segment holding its first picture alone (one `moof` and `mdat`): fetched with a Range
// request and decoded with WebCodecs, so a preview costs one keyframe, not a segment, and the
// playing video is not touched. Browsers without WebCodecs get no preview.

import { get } from "./network.js";
import { attribute, parseMediaPlaylist } from "./playlists.js";

/** The boxes inside `bytes[start, end)`: `{ type, start, content: [from, to) }`, until one does not fit. */
export function boxes(bytes, start = 0, end = bytes.length) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const found = [];
    let at = start;
    while (at + 8 <= end) {
        let size = view.getUint32(at);
        let header = 8;
        if (size === 1) {
            if (at + 16 > end) break;
            size = Number(view.getBigUint64(at + 8));
            header = 16;
        } else if (size === 0) {
            size = end - at;
        }
        if (size < header || size > end - at) break;
        const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
        found.push({ type, start: at, content: [at + header, at + size] });
        at += size;
    }
    return found;
}

function child(bytes, box, type) {
    return box && boxes(bytes, box.content[0], box.content[1]).find((b) => b.type === type);
}

/**
 * The decoder's description from an init segment: the video sample entry's configuration box
 * (`avcC`, `hvcC`, `av1C`) content, or null when there is none.
 */
export function decoderDescription(init) {
    const moov = boxes(init).find((b) => b.type === "moov");
    for (const trak of moov ? boxes(init, ...moov.content).filter((b) => b.type === "trak") : []) {
        const stbl = child(init, child(init, child(init, trak, "mdia"), "minf"), "stbl");
        const stsd = child(init, stbl, "stsd");
        if (!stsd) continue;
        // stsd: version and flags, entry count, then the sample entries; a visual sample entry
        // has 78 bytes of fields before its boxes.
        for (const entry of boxes(init, stsd.content[0] + 8, stsd.content[1])) {
            const config = boxes(init, entry.content[0] + 78, entry.content[1]).find((b) =>
                ["avcC", "hvcC", "av1C"].includes(b.type)
            );
            if (config) return init.slice(config.content[0], config.content[1]);
        }
    }
    return null;
}

/**
 * The first sample of a movie fragment's first track run: its bytes and whether it is a sync
 * sample. Null when the boxes do not say (or the sample is not all there).
 */
export function firstSample(fragment) {
    const view = new DataView(fragment.buffer, fragment.byteOffset, fragment.byteLength);
    const moof = boxes(fragment).find((b) => b.type === "moof");
    const traf = child(fragment, moof, "traf");
    const tfhd = child(fragment, traf, "tfhd");
    const trun = child(fragment, traf, "trun");
    if (!tfhd || !trun) return null;
    const tfhdFlags = view.getUint32(tfhd.content[0]) & 0xffffff;
    let at = tfhd.content[0] + 8;
    let base = moof.start;
    if (tfhdFlags & 0x01) {
        base = Number(view.getBigUint64(at));
        at += 8;
    }
    if (tfhdFlags & 0x02) at += 4;
    if (tfhdFlags & 0x08) at += 4;
    let size = null;
    if (tfhdFlags & 0x10) {
        size = view.getUint32(at);
        at += 4;
    }
    let flags = tfhdFlags & 0x20 ? view.getUint32(at) : null;
    const trunFlags = view.getUint32(trun.content[0]) & 0xffffff;
    at = trun.content[0] + 8;
    let offset = 0;
    if (trunFlags & 0x001) {
        offset = view.getInt32(at);
        at += 4;
    }
    if (trunFlags & 0x004) {
        flags = view.getUint32(at);
        at += 4;
    }
    if (trunFlags & 0x100) at += 4;
    if (trunFlags & 0x200) {
        size = view.getUint32(at);
        at += 4;
    }
    if (trunFlags & 0x400 && !(trunFlags & 0x004)) flags = view.getUint32(at);
    const start = base + offset;
    if (size === null || start < moof.content[1] || start + size > fragment.length) return null;
    return { data: fragment.slice(start, start + size), sync: flags === null || !(flags & 0x10000) };
}

/** The entry of `entries` (wall-timed, oldest first) showing at `wall`: the last that starts at or before it. */
export function entryAt(entries, wall) {
    let found = null;
    for (const entry of entries) {
        if (entry.dateTime > wall) break;
        found = entry;
    }
    return found || entries[0] || null;
}

/** Previews of the rewind window's moments, drawn on a canvas. */
export class KeyframePreview {
    /** `dvrURL`: the channel's `dvr.m3u8`. */
    constructor(dvrURL) {
        this.dvrURL = new URL(dvrURL, location.href).href;
        this.entries = [];
        this.inits = new Map();
        this.shown = null;
    }

    /** Whether this browser can decode previews at all. */
    static get supported() {
        return typeof VideoDecoder !== "undefined" && typeof EncodedVideoChunk !== "undefined";
    }

    /** Reads the I-frame playlist again (the window slides): the smallest rung's. */
    async refresh() {
        if (!this.uri) {
            const response = await get(this.dvrURL, 10);
            if (!response.ok) return false;
            const streams = (await response.text())
                .split(/\r?\n/)
                .filter((line) => line.startsWith("#EXT-X-I-FRAME-STREAM-INF:"))
                .map((line) => ({
                    uri: new URL(attribute(line, "URI"), response.url).href,
                    codec: (attribute(line, "CODECS") || "").split(",")[0],
                    bandwidth: parseInt(attribute(line, "BANDWIDTH"), 10) || 0,
                }));
            if (!streams.length) return false;
            const smallest = streams.reduce((a, b) => (b.bandwidth < a.bandwidth ? b : a));
            this.uri = smallest.uri;
            this.codec = smallest.codec;
        }
        const response = await get(this.uri, 10);
        if (!response.ok) return false;
        const playlist = parseMediaPlaylist(await response.text(), response.url);
        this.entries = playlist.segments.filter((s) => s.byteRange && s.dateTime !== null);
        return this.entries.length > 0;
    }

    /**
     * Draws the keyframe shown at `wall` (ms since 1970) on `canvas`; resolves to its entry, or
     * null when there is none or it cannot be decoded. A newer call makes an older one's result moot.
     */
    async draw(wall, canvas) {
        if (!KeyframePreview.supported) return null;
        if (!this.entries.length && !(await this.refresh())) return null;
        const entry = entryAt(this.entries, wall);
        if (!entry) return null;
        if (this.shown === entry.uri) return entry;
        const asked = (this.asked = entry.uri);
        const [init, fragment] = await Promise.all([this.init(entry.init), this.range(entry)]);
        const sample = fragment && firstSample(fragment);
        if (!init || !sample || !sample.sync || asked !== this.asked) return null;
        const frame = await this.decode(init, sample.data);
        if (!frame) return null;
        try {
            if (asked !== this.asked) return null;
            canvas.width = frame.displayWidth;
            canvas.height = frame.displayHeight;
            canvas.getContext("2d").drawImage(frame, 0, 0);
            canvas.dataset.wall = String(entry.dateTime);
            this.shown = entry.uri;
            return entry;
        } finally {
            frame.close();
        }
    }

    async init(uri) {
        if (!this.inits.has(uri)) {
            this.inits.set(
                uri,
                get(uri, 10).then(async (r) => (r.ok ? new Uint8Array(await r.arrayBuffer()) : null))
            );
        }
        return this.inits.get(uri);
    }

    async range(entry) {
        const { offset, length } = entry.byteRange;
        const response = await fetch(entry.uri, { headers: { Range: `bytes=${offset}-${offset + length - 1}` } });
        if (!response.ok) return null;
        const bytes = new Uint8Array(await response.arrayBuffer());
        // A server that ignores the Range header sends the whole segment (200).
        return response.status === 206 ? bytes : bytes.slice(offset, offset + length);
    }

    /** One key picture decoded on its own; null when this browser cannot. */
    decode(init, data) {
        const description = decoderDescription(init);
        return new Promise((resolve) => {
            let result = null;
            const decoder = new VideoDecoder({
                output: (frame) => {
                    if (result) frame.close();
                    else result = frame;
                },
                error: () => resolve(null),
            });
            try {
                decoder.configure({ codec: this.codec, ...(description ? { description } : {}) });
                decoder.decode(new EncodedVideoChunk({ type: "key", timestamp: 0, data }));
                decoder.flush().then(
                    () => {
                        decoder.close();
                        resolve(result);
                    },
                    () => resolve(result)
                );
            } catch (error) {
                resolve(null);
            }
        });
    }
}
