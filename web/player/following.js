// Following the playlist: reloading it (held by the server with Low-Latency HLS), starting when
// there is enough to play, reconnecting after failures, and ending with an ended channel.

import { get } from "./network.js";
import { blockingURL, parseMediaPlaylist } from "./playlists.js";
import { isAfter, mediaUnits } from "./units.js";

/** The player's methods for this job, taken on by ``OnairPlayer``. */
export class Following {
    /**
     * Reloads the playlist until the channel ends (or forever while it does not exist). With
     * Low-Latency HLS the server holds each reload until the next part exists, so the loop
     * asks again at once.
     */
    async follow() {
        while (this.running) {
            let wait = 1;
            try {
                await this.reload();
                this.retryAtOnce = false;
                this.problem = null;
                this.failingSince = null;
                if (this.playlist) wait = this.blocking() ? 0 : Math.min(1, this.playlist.targetDuration / 2);
                // Moved to another playlist (rewound, or back to live) meanwhile: read it at once.
                if (!this.variant) wait = 0;
                // An ended channel is followed no more; a rewind window may still be played from.
                if (this.playlist && this.playlist.ended && this.finished() && !this.dvrURL) return;
            } catch (error) {
                this.problem = String(error.message || error);
                if (this.failingSince === null) this.failingSince = Date.now();
                // A live channel stays live through a short outage (the viewer's link, the server
                // restarting) while its buffer plays on; a channel no longer listed, or one out of
                // reach for longer, is waited for again.
                const outage = (Date.now() - this.failingSince) / 1000;
                const brief = this.state === "live" && this.variant && outage < Math.max(10, 3 * this.targetDuration());
                if (this.state !== "ended" && !brief) this.setState("waiting");
                // On a twin that is not passed over (moved to now, or by another request): asked there at once.
                wait = this.retryAtOnce ? 0 : 2;
                this.retryAtOnce = false;
            }
            if (wait > 0) await this.nap(wait);
        }
    }

    /** Sleeps `seconds`, or until `wake()`. */
    nap(seconds) {
        return new Promise((resolve) => {
            const timer = setTimeout(() => {
                this.wakeUp = null;
                resolve();
            }, seconds * 1000);
            this.wakeUp = () => {
                clearTimeout(timer);
                this.wakeUp = null;
                resolve();
            };
        });
    }

    wake() {
        if (this.wakeUp) this.wakeUp();
    }

    /** True when reloads of this playlist may wait on the server for the next part. */
    blocking() {
        return this.engine === "mse" && this.playlist.canBlockReload && !this.playlist.ended;
    }

    /** The media playlist address, asking for the part after the newest listed when blocking. */
    reloadURL() {
        const address = this.withSession(this.variant.uri);
        return this.playlist && this.blocking() ? blockingURL(address, this.playlist) : address;
    }

    async reload() {
        if (!this.variant) {
            const response = await get(this.withSession(this.onPathway(this.playlistURL)), 10);
            if (!response.ok) throw new Error("playlist: HTTP " + response.status);
            const text = await response.text();
            this.readPathways(text, response.url);
            if (!this.variants.length)
                this.variants = [{ uri: this.playlistURL, codecs: null, width: 0, height: 0, bandwidth: 0, average: 0, name: "" }];
            // The best that a 5 Mbit/s link carries, until downloads say what this one does.
            this.level = this.pinned !== null ? Math.min(this.pinned, this.variants.length - 1) : 0;
            this.variants.forEach((variant, index) => {
                if (this.pinned === null && variant.bandwidth <= 5e6) this.level = index;
            });
            this.variant = this.variants[this.level];
        }
        const requested = this.variant;
        const pathway = this.pathway;
        let response;
        try {
            response = await get(this.reloadURL(), 4 * this.targetDuration());
        } catch (error) {
            // The origin is gone: its twin serves the same playlist, under the same numbers.
            this.retryAtOnce = this.failOver(pathway);
            throw error;
        }
        if (!response.ok && (response.status >= 500 || (response.status === 404 && this.pathways)))
            this.retryAtOnce = this.failOver(pathway);
        // The player moved to another variant (or twin) meanwhile: this playlist is not its own any more.
        if (this.variant !== requested) return;
        if (!response.ok) {
            if (response.status === 404 && !this.pathways) this.variant = null;
            throw new Error("media playlist: HTTP " + response.status);
        }
        const text = await response.text();
        if (this.variant !== requested) return;
        const playlist = parseMediaPlaylist(text, response.url);
        const previous = this.playlist;
        this.playlist = playlist;
        if (previous && this.newest(playlist) < this.newest(previous)) {
            // The channel started again from sequence 0: what is buffered belongs to the old run.
            this.detach();
        }
        if (playlist.segments.length === 0) {
            this.setState("waiting");
            return;
        }
        if (!this.attached && this.wanted === "auto" && (playlist.partTarget || this.variants.length > 1 || this.subtitles) && this.canUseMSE()) {
            // A Low-Latency channel: this player plays its parts; the browser's own HLS may not.
            // Several variants: this player steps down before the buffer runs dry; the browser's may not.
            // Captions: this player shows them; Chromium's own HLS does not.
            this.engine = "mse";
        }
        if (!this.attached && this.canStart(playlist)) this.attach();
        if (this.engine === "mse") this.pump();
        this.setState(playlist.ended ? "ended" : "live");
    }

    /**
     * Whether to start yet: once the playlist holds the three target durations a player starts
     * behind (HOLD-BACK; Chromium's own HLS refuses a shorter live playlist), so playback never
     * runs into the live edge. A Low-Latency channel in this player starts at once, PART-HOLD-BACK
     * behind its newest part.
     */
    canStart(playlist) {
        const listed = playlist.segments.reduce((sum, segment) => sum + segment.duration, 0);
        if (playlist.ended || this.rewound || (this.engine === "mse" && playlist.partTarget)) return true;
        return listed >= 3 * playlist.targetDuration - 0.5;
    }

    canUseMSE() {
        const codecs = (this.variant && this.variant.codecs) || "avc1.64001f,mp4a.40.2";
        return "MediaSource" in globalThis && MediaSource.isTypeSupported('video/mp4; codecs="' + codecs + '"');
    }

    newest(playlist) {
        return playlist.mediaSequence + playlist.segments.length - 1;
    }

    targetDuration() {
        return this.playlist ? this.playlist.targetDuration : 2;
    }

    /** True once the player has everything of an ended channel it will fetch. */
    finished() {
        if (this.engine === "native") return true;
        return this.last !== null && !mediaUnits(this.playlist).some((unit) => isAfter(unit, this.last));
    }

    /** Ends the MediaSource once the video and its sound have everything of an ended channel. */
    endIfFinished() {
        if (!this.playlist || !this.playlist.ended || !this.finished() || (this.sound && !this.sound.done)) return;
        const buffers = [this.buffer].concat(this.sound ? [this.sound.buffer] : []);
        if (this.mediaSource.readyState === "open" && !buffers.some((b) => b.updating)) this.mediaSource.endOfStream();
    }
}
