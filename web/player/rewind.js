// Rewinding a channel published with `--dvr`: its rewind window, playing from a moment of it,
// coming back to live, and the wall time of any moment of the video.

import { get } from "./network.js";
import { parseMediaPlaylist, parseVariants } from "./playlists.js";

/** The player's methods for this job, taken on by ``OnairPlayer``. */
export class Rewind {
    /** Lets viewers rewind, through the channel's rewind window (`dvr.m3u8`). */
    setRewindWindow(url) {
        if (this.dvrURL) return;
        this.dvrURL = new URL(url, location.href).href;
        this.refreshWindow();
        this.windowTimer = setInterval(() => this.refreshWindow(), 5000);
    }

    /** Reads the rewind window (one variant's: every variant lists the same segments). */
    async refreshWindow() {
        if (!this.dvrURL || this.refreshing) return;
        this.refreshing = true;
        try {
            if (!this.windowURI) {
                const response = await get(this.withSession(this.dvrURL), 10);
                if (!response.ok) throw new Error("rewind window: HTTP " + response.status);
                const text = await response.text();
                const variants = parseVariants(text, response.url);
                this.windowURI = variants.length ? variants[0].uri : response.url;
            }
            const response = await get(this.withSession(this.windowURI), 10);
            if (!response.ok) throw new Error("rewind window: HTTP " + response.status);
            const playlist = parseMediaPlaylist(await response.text(), response.url);
            const segments = playlist.segments.filter((segment) => segment.dateTime !== null);
            if (segments.length) this.window = { segments, ended: playlist.ended, markers: playlist.markers };
        } catch (error) {
            // Not there yet, or the server is away: the window keeps its last state.
        } finally {
            this.refreshing = false;
        }
    }

    /**
     * How far back viewers may go, in wall times (ms since 1970): `start`, the oldest moment kept,
     * and `end`, where a live player plays (the hold-back behind the newest media). Null before
     * the window is known.
     */
    rewindWindow() {
        if (!this.window) return null;
        const segments = this.window.segments;
        const last = segments[segments.length - 1];
        const newest = last.dateTime + last.duration * 1000;
        const holdBack = this.playlist ? this.holdBack(this.playlist) : 6;
        return { start: segments[0].dateTime, end: Math.max(segments[0].dateTime, newest - holdBack * 1000) };
    }

    /** The markers (chapters) of the rewind window, oldest first: `{ id, start, title }`, start in ms. */
    rewindMarkers() {
        return this.window ? this.window.markers : [];
    }

    /**
     * Plays the channel from `wall` (ms since 1970) on, from the rewind window: with MSE from that
     * very moment (`dvr.m3u8?from=N`, the window from the segment holding it), with the browser's
     * HLS (which cannot seek in a live playlist) from the window as it stood then (`?delay=S`),
     * within a segment or so. Near the live edge, plays live instead.
     */
    rewindTo(wall) {
        const range = this.rewindWindow();
        if (!range || !this.dvrURL) return false;
        const segments = this.window.segments;
        const nearLive = wall >= range.end - 2 * this.targetDuration() * 1000;
        if (nearLive) return this.goLive();
        const at = Math.max(wall, range.start);
        const segment = segments.find((s) => s.dateTime <= at && at < s.dateTime + s.duration * 1000) || segments[0];
        this.rewound = { from: segment.sequence, wall: at };
        const address = new URL(this.dvrURL);
        if (this.engine === "native") {
            // The browser's HLS starts near the end of a live playlist and cannot seek in one: it
            // gets the window as it stood a while ago (a playlist running that far behind), and
            // starts its usual hold-back before that end.
            const seconds = (Date.now() - at) / 1000 - 3 * this.targetDuration();
            address.searchParams.set("delay", String(Math.max(1, Math.round(seconds))));
        } else {
            address.searchParams.set("from", String(segment.sequence));
        }
        this.restart(address.href);
        return true;
    }

    /** Back to the live edge after rewinding. */
    goLive() {
        const was = this.rewound;
        this.rewound = null;
        if (was || this.playlistURL !== this.liveURL) this.restart(this.liveURL);
        return true;
    }

    /** Seconds between the live edge and the moment on screen; null before it is known. */
    behindLive() {
        const range = this.rewindWindow();
        const wall = this.wallTime(this.video.currentTime);
        if (wall === null) return null;
        if (!range) return this.rewound ? null : 0;
        return Math.max(0, (range.end - wall) / 1000);
    }

    /** Plays another playlist from its start: the channel's variants are read again from it. */
    restart(url) {
        this.playlistURL = url;
        this.variant = null;
        this.playlist = null;
        this.detach();
        this.wake();
    }

    /** True when `time` is in a buffered range. */
    isBuffered(time) {
        const ranges = this.video.buffered;
        for (let i = 0; i < ranges.length; i++) if (ranges.start(i) - 0.1 <= time && time <= ranges.end(i) + 0.1) return true;
        return false;
    }

    /** The wall time of a media time anywhere in this attachment's run (MSE), or null. */
    wallOf(time) {
        const known = (this.timeline || []).filter((unit) => unit.dateTime !== null);
        const unit = known[known.length - 1];
        return unit ? unit.dateTime + (time - unit.start) * 1000 : null;
    }

    /**
     * MSE with a rewind window: the video's `seekable` range covers the window, from its oldest
     * moment to the newest media, so the video's controls and other scripts can seek in it.
     */
    updateSeekable(end) {
        const range = this.rewindWindow();
        const source = this.mediaSource;
        if (!range || !source || source.readyState !== "open" || !source.setLiveSeekableRange) return;
        const oldest = this.wallOf(0);
        if (oldest === null) return;
        const start = Math.max(0, (range.start - oldest) / 1000);
        try {
            if (source.duration !== Infinity && !Array.from(source.sourceBuffers).some((b) => b.updating))
                source.duration = Infinity;
            source.setLiveSeekableRange(Math.min(start, end), end);
        } catch (error) {
            // A buffer was busy: next tick.
        }
    }

    /** Wall time (ms since 1970) of a media time, or null before it is known. */
    wallTime(time) {
        if (this.engine === "native") return this.offset === null ? null : this.offset + time * 1000;
        const segment = (this.timeline || []).find((s) => s.start <= time && time < s.end + 0.05);
        return segment && segment.dateTime !== null ? segment.dateTime + (time - segment.start) * 1000 : null;
    }
}
