// A channel's captions in the MSE engine, from their WebVTT playlist.

import { get, sleep } from "./network.js";
import { parseMediaPlaylist } from "./playlists.js";

/**
 * Follows the captions' playlist (whole segments, reloaded every half target duration), and adds
 * each new segment's cues to one text track of the video, once each: a caption that spans two
 * segments is in both. The page's CC button shows or hides the track. Captions are no reason to
 * stop the picture: a failed reload is tried again a second later.
 */
export class CaptionTrack {
    constructor(player, subtitles) {
        this.player = player;
        this.uri = subtitles.uri;
        this.track = player.video.addTextTrack("subtitles", subtitles.name, subtitles.language);
        this.track.mode = "showing";
        this.fetched = new Set();
        this.added = new Set();
    }

    /** Follows the captions until the channel ends or the player starts over (`generation`). */
    async run(generation) {
        const player = this.player;
        while (player.running && generation === player.generation) {
            let wait = 1;
            try {
                const response = await get(player.withSession(this.uri), 4 * player.targetDuration());
                if (!response.ok) throw new Error("captions playlist: HTTP " + response.status);
                const playlist = parseMediaPlaylist(await response.text(), response.url);
                // Live: the newest few (older ones were played long ago). A recording: all of them,
                // a few at a time from its start.
                const unread = playlist.segments.filter((segment) => !this.fetched.has(segment.uri));
                for (const segment of playlist.ended ? unread.slice(0, 8) : unread.slice(-4)) {
                    if (generation !== player.generation) return;
                    const file = await get(player.withSession(segment.uri), 2 * player.targetDuration());
                    if (!file.ok && !playlist.ended) continue;
                    this.fetched.add(segment.uri);
                    if (file.ok) this.add(parseWebVTT(await file.text()));
                }
                if (playlist.ended && unread.length <= 8) return;
                wait = playlist.ended ? 0 : Math.min(1, playlist.targetDuration / 2);
            } catch (error) {
                wait = 1;
            }
            if (wait > 0) await sleep(wait);
        }
    }

    /** Cues in media time, placed on the video's timeline (moved as the video's segments are). */
    add(cues) {
        const offset = (this.player.buffer && this.player.buffer.timestampOffset) || 0;
        for (const cue of cues) {
            const key = cue.start + "|" + cue.end + "|" + cue.text;
            if (this.added.has(key)) continue;
            this.added.add(key);
            this.track.addCue(new VTTCue(cue.start + offset, cue.end + offset, cue.text));
        }
        if (this.added.size > 5000) this.added = new Set([...this.added].slice(-1000));
    }
}

/**
 * The cues of a WebVTT file in media time: their own times moved by its `X-TIMESTAMP-MAP`
 * (`MPEGTS` ticks of 90 kHz for the `LOCAL` time).
 * @returns {{start: number, end: number, text: string}[]}
 */
export function parseWebVTT(text) {
    const blocks = text.replace(/\r\n?/g, "\n").split(/\n\n+/);
    if (!blocks[0].startsWith("WEBVTT")) return [];
    let shift = 0;
    const map = /X-TIMESTAMP-MAP=([^\n]*)/.exec(blocks[0]);
    if (map) {
        const mpegts = /MPEGTS:(\d+)/.exec(map[1]);
        const local = /LOCAL:([\d:.]+)/.exec(map[1]);
        if (mpegts && local) shift = Number(mpegts[1]) / 90000 - seconds(local[1]);
    }
    const cues = [];
    for (const block of blocks.slice(1)) {
        const lines = block.split("\n");
        const at = lines.findIndex((line) => line.includes("-->"));
        if (at < 0) continue;
        const [from, to] = lines[at].split("-->").map((s) => s.trim().split(/\s+/)[0]);
        const start = seconds(from);
        const end = seconds(to);
        if (Number.isNaN(start) || Number.isNaN(end)) continue;
        cues.push({ start: start + shift, end: end + shift, text: lines.slice(at + 1).join("\n").replace(/\n+$/, "") });
    }
    return cues;
}

/** `hh:mm:ss.ttt` or `mm:ss.ttt` in seconds. */
function seconds(stamp) {
    const fields = stamp.split(":").map(Number);
    return fields.reduce((total, field) => total * 60 + field, 0);
}
