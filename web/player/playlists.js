// Playlists as text, read into values: a media playlist's segments and parts, a multivariant
// playlist's variants and sound, content steering, codecs lists, and the blocking reload's address.

/** The value of one attribute of a tag line: `CODECS="avc1.64001f,mp4a.40.2"`. */
export function attribute(line, name) {
    const match = new RegExp("[:,]" + name + '=("[^"]*"|[^,]*)').exec(line);
    return match ? match[1].replace(/^"|"$/g, "") : null;
}

/**
 * The media playlist's segments with their sequence numbers, durations and wall times, and
 * for Low-Latency HLS their parts, the parts of the segment being made and the server's promises.
 */
export function parseMediaPlaylist(text, base) {
    const lines = text.split(/\r?\n/);
    if (lines[0].trim() !== "#EXTM3U") throw new Error("not a playlist");
    const playlist = {
        targetDuration: 2,
        mediaSequence: 0,
        segments: [],
        ended: false,
        init: null,
        partTarget: null,
        partHoldBack: null,
        canBlockReload: false,
        openParts: [],
        /** onair's markers (EXT-X-DATERANGE of CLASS org.onair.chapter): id, start (ms), title. */
        markers: [],
    };
    let duration = 0;
    let dateTime = null;
    let discontinuity = false;
    let map = null;
    let parts = [];
    let byteRange = null;
    for (const raw of lines) {
        const line = raw.trim();
        if (line.startsWith("#EXT-X-TARGETDURATION:")) playlist.targetDuration = parseFloat(line.slice(22));
        else if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) playlist.mediaSequence = parseInt(line.slice(22), 10);
        else if (line.startsWith("#EXT-X-MAP:")) {
            map = new URL(attribute(line, "URI"), base).href;
            playlist.init = playlist.init || map;
        }
        else if (line.startsWith("#EXTINF:")) duration = parseFloat(line.slice(8));
        else if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) dateTime = Date.parse(line.slice(25));
        else if (line === "#EXT-X-DISCONTINUITY") discontinuity = true;
        else if (line.startsWith("#EXT-X-BYTERANGE:")) {
            // An I-frame playlist's `<length>@<offset>`.
            const [length, offset] = line.slice(17).split("@").map((n) => parseInt(n, 10));
            byteRange = { length, offset: offset || 0 };
        }
        else if (line === "#EXT-X-ENDLIST") playlist.ended = true;
        else if (line.startsWith("#EXT-X-DATERANGE:")) {
            const start = Date.parse(attribute(line, "START-DATE"));
            if (attribute(line, "CLASS") === "org.onair.chapter" && !Number.isNaN(start)) {
                playlist.markers.push({ id: attribute(line, "ID"), start, title: attribute(line, "X-TITLE") || "" });
            }
        }
        else if (line.startsWith("#EXT-X-PART-INF:")) playlist.partTarget = parseFloat(attribute(line, "PART-TARGET"));
        else if (line.startsWith("#EXT-X-SERVER-CONTROL:")) {
            playlist.canBlockReload = attribute(line, "CAN-BLOCK-RELOAD") === "YES";
            playlist.partHoldBack = parseFloat(attribute(line, "PART-HOLD-BACK")) || null;
        } else if (line.startsWith("#EXT-X-PART:")) {
            parts.push({
                uri: new URL(attribute(line, "URI"), base).href,
                duration: parseFloat(attribute(line, "DURATION")),
                independent: attribute(line, "INDEPENDENT") === "YES",
            });
        } else if (line && !line.startsWith("#")) {
            playlist.segments.push({
                uri: new URL(line, base).href,
                sequence: playlist.mediaSequence + playlist.segments.length,
                duration,
                dateTime,
                discontinuity,
                init: map,
                parts,
                byteRange,
            });
            dateTime = dateTime === null ? null : dateTime + duration * 1000;
            discontinuity = false;
            parts = [];
            byteRange = null;
        }
    }
    playlist.openParts = parts;
    playlist.openDateTime = dateTime;
    playlist.openDiscontinuity = discontinuity;
    playlist.openInit = map;
    return playlist;
}

/**
 * The variants of a multivariant playlist, lowest bit rate first (empty for a media playlist),
 * each with its address, codecs, size and bit rates.
 */
export function parseVariants(text, base) {
    const lines = text.split(/\r?\n/);
    if (lines[0].trim() !== "#EXTM3U") throw new Error("not a playlist");
    const variants = [];
    for (let i = 0; i < lines.length; i++) {
        if (!lines[i].startsWith("#EXT-X-STREAM-INF:")) continue;
        const uri = lines.slice(i + 1).find((line) => line.trim() && !line.startsWith("#"));
        const resolution = (attribute(lines[i], "RESOLUTION") || "").split("x").map(Number);
        const bandwidth = parseInt(attribute(lines[i], "BANDWIDTH"), 10) || 0;
        const height = resolution[1] || 0;
        variants.push({
            uri: new URL(uri.trim(), base).href,
            codecs: attribute(lines[i], "CODECS"),
            width: resolution[0] || 0,
            height,
            bandwidth,
            average: parseInt(attribute(lines[i], "AVERAGE-BANDWIDTH"), 10) || bandwidth,
            name: height ? Math.min(resolution[0], height) + "p" : "variant " + (variants.length + 1),
            pathway: attribute(lines[i], "PATHWAY-ID"),
        });
    }
    return variants.sort((a, b) => a.bandwidth - b.bandwidth);
}

/**
 * The variants this browser can play, one for each picture size: of a size offered in two codecs
 * (an AV1 rung beside its H.264 twin), the one of the lowest rate that `canPlay(codecs)` accepts.
 * A variant without CODECS or a size is kept as it is; when none can be played, all are kept (the
 * browser's own HLS may still play them).
 */
export function playableVariants(variants, canPlay) {
    const playable = variants.filter((variant) => !variant.codecs || canPlay(variant.codecs));
    if (playable.length === 0) return variants;
    const size = (variant) => (variant.width && variant.height ? variant.width + "x" + variant.height : null);
    const cheapest = new Map();
    for (const variant of playable) {
        const kept = size(variant) && cheapest.get(size(variant));
        if (size(variant) && (!kept || variant.average < kept.average)) cheapest.set(size(variant), variant);
    }
    return playable.filter((variant) => !size(variant) || cheapest.get(size(variant)) === variant);
}

/**
 * The `EXT-X-MEDIA` line of a rendition of `type` (AUDIO, SUBTITLES) with a URI, in a group the
 * variants (of `pathway`, with twins) name in their `type` attribute; null when there is none.
 */
function renditionLine(text, pathway, type) {
    const lines = text.split(/\r?\n/);
    const variantLines = lines.filter((l) => l.startsWith("#EXT-X-STREAM-INF:") && (!pathway || attribute(l, "PATHWAY-ID") === pathway));
    const groups = new Set(variantLines.map((l) => attribute(l, type)));
    const named = (line) => attribute(line, "TYPE") === type && attribute(line, "URI") && groups.has(attribute(line, "GROUP-ID"));
    return lines.find((line) => line.startsWith("#EXT-X-MEDIA:") && named(line)) || null;
}

/**
 * The sound of a multivariant playlist when it has a playlist of its own (an `EXT-X-MEDIA`
 * audio rendition with a URI, named by the variants' `AUDIO`): its address, or null.
 */
export function parseSound(text, base, pathway) {
    const line = renditionLine(text, pathway, "AUDIO");
    return line ? new URL(attribute(line, "URI"), base).href : null;
}

/**
 * The captions of a multivariant playlist (an `EXT-X-MEDIA` subtitle rendition named by the
 * variants' `SUBTITLES`): their address, name and language, or null.
 */
export function parseSubtitles(text, base, pathway) {
    const line = renditionLine(text, pathway, "SUBTITLES");
    if (!line) return null;
    return { uri: new URL(attribute(line, "URI"), base).href, name: attribute(line, "NAME") || "Captions", language: attribute(line, "LANGUAGE") || "" };
}

/** `EXT-X-CONTENT-STEERING`: the steering manifest's address and the pathway to start on, or null. */
export function parseSteering(text, base) {
    const line = text.split(/\r?\n/).find((l) => l.startsWith("#EXT-X-CONTENT-STEERING:"));
    const uri = line && attribute(line, "SERVER-URI");
    return uri ? { uri: new URL(uri, base).href, pathway: attribute(line, "PATHWAY-ID") } : null;
}

/**
 * The first part of every sound codec's string: the rule `CodecFamily.audioPrefixes` keeps for
 * the origin (Sources/Runtime/VideoCodec.swift); a test holds the two lists equal.
 */
export const audioCodecPrefixes = ["mp4a", "ac-3", "ec-3", "opus", "flac"];

function isAudioCodec(codec) {
    return audioCodecPrefixes.includes(codec.trim().split(".")[0].toLowerCase());
}

/** The video codecs of a CODECS list (what a video-only SourceBuffer takes). */
export function videoCodecs(codecs) {
    return codecs.split(",").filter((codec) => !isAudioCodec(codec)).join(",");
}

/** The audio codecs of a CODECS list. */
export function audioCodecs(codecs) {
    return codecs.split(",").filter(isAudioCodec).join(",");
}

/** A media playlist's address, asking for the part after its newest when the server holds reloads. */
export function blockingURL(uri, playlist) {
    const address = new URL(uri);
    address.searchParams.set("_HLS_msn", String(playlist.mediaSequence + playlist.segments.length));
    address.searchParams.set("_HLS_part", String(playlist.openParts.length));
    return address.href;
}
