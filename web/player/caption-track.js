// A channel's captions in the MSE engine, from their WebVTT playlist.

import { get, sleep } from "./network.js";
import { parseMediaPlaylist } from "./playlists.js";

/**
 * Follows the captions' playlist (whole segments, reloaded every half target duration, or every
 * half second when the pictures come in Low-Latency parts), and adds each new segment's cues to one
 * text track of the video, once each: a caption that spans two segments is in both. Under
 * Low-Latency HLS the picture plays less than a segment behind live, so a caption often comes after
 * its moment has begun; a file's captions that come late are shown from when they come, as long and
 * as far apart as they were said (see `placeCues`).
 * The page's CC button shows or hides the track. Captions are no reason to stop the picture: a
 * failed reload is tried again a second later.
 */
export class CaptionTrack {
    constructor(player, subtitles) {
        this.player = player;
        this.uri = subtitles.uri;
        this.track = player.video.addTextTrack("subtitles", subtitles.name, subtitles.language);
        this.track.mode = "showing";
        this.fetched = new Set();
        this.added = new Set();
        /** Whether the first reading is done: the captions it finds are the past, not late. */
        this.caughtUp = false;
    }

    /** Follows the captions until the channel ends or the player starts over (`generation`). */
    async run(generation) {
        const player = this.player;
        this.caughtUp = false;
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
                    if (file.ok) this.add(parseWebVTT(await file.text()), this.caughtUp && !playlist.ended);
                }
                this.caughtUp = true;
                if (playlist.ended && unread.length <= 8) return;
                const lowLatency = player.playlist && player.playlist.partTarget;
                wait = playlist.ended ? 0 : Math.min(lowLatency ? 0.5 : 1, playlist.targetDuration / 2);
            } catch (error) {
                wait = 1;
            }
            if (wait > 0) await sleep(wait);
        }
    }

    /**
     * One file's cues in media time, placed on the video's timeline (moved as the video's segments
     * are); when `live`, those that came late are moved together (`placeCues`).
     */
    add(cues, live) {
        const offset = (this.player.buffer && this.player.buffer.timestampOffset) || 0;
        const now = this.player.video.currentTime;
        const late = live ? LATE_TARGETS * this.player.targetDuration() : 0;
        const fresh = cues.filter((cue) => {
            const key = cue.start + "|" + cue.end + "|" + cue.text;
            if (this.added.has(key)) return false;
            this.added.add(key);
            return true;
        });
        const onTimeline = fresh.map((cue) => ({ start: cue.start + offset, end: cue.end + offset, text: cue.text }));
        for (const cue of placeCues(onTimeline, now, late)) this.track.addCue(new VTTCue(cue.start, cue.end, cue.text));
        if (this.added.size > 5000) this.added = new Set([...this.added].slice(-1000));
    }
}

/** How long after its moment began a caption is still shown when it comes: target durations. */
const LATE_TARGETS = 2;

/**
 * Where captions read together (one file's) go on the video's timeline, given the picture at `now`:
 * at their own times, unless some came after their start, by no more than `late` seconds; then all
 * of them are moved by the most any of those is late, so that the first starts now and each lasts,
 * and follows the one before, as it was said. (One that began more than `late` seconds ago keeps
 * its times: it is the past.) A caption is read once its segment is cut, and a player closer to live
 * than a segment (Low-Latency HLS) would show it only for what is left of it, or not at all. Live
 * television's captions come a little after the words too.
 * @param {{start: number, end: number, text: string}[]} cues
 * @returns {{start: number, end: number, text: string}[]}
 */
export function placeCues(cues, now, late) {
    const behind = cues.map((cue) => now - cue.start).filter((lateness) => lateness > 0 && lateness <= late);
    const delay = behind.length > 0 ? Math.max(...behind) : 0;
    return cues.map((cue) =>
        now - cue.start > late ? cue : { start: cue.start + delay, end: cue.end + delay, text: cue.text });
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
