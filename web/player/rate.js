// Rate choice: which variant to play, from the measured throughput and the buffer, and the
// player's moves between variants (a viewer's pick, or its own).

import { get } from "./network.js";
import { parseMediaPlaylist } from "./playlists.js";

/**
 * Adaptive bit rate: which variant to play, from the measured throughput (two moving
 * averages, the lower counted) and the buffer. Down at once to the best that fits in 80 % of
 * the throughput; up one step at a time, once what is above fits in 70 % and the buffer holds,
 * and never sooner than 4 s after the last move.
 */
export class RateChooser {
    constructor() {
        this.fast = null;
        this.slow = null;
        this.lastMove = 0;
    }

    /** A download of `bytes` that took `seconds`. */
    measured(bytes, seconds) {
        if (bytes < 2000 || seconds <= 0) return;
        const rate = (bytes * 8) / Math.max(seconds, 0.005);
        const mix = (old, weight) => (old === null ? rate : old + weight * (rate - old));
        this.fast = mix(this.fast, 0.5);
        this.slow = mix(this.slow, 0.15);
    }

    /** A download given up as too slow, at `rate` bits per second: counted on at once. */
    slowLink(rate) {
        this.fast = rate;
        this.slow = Math.min(this.slow === null ? rate : this.slow, rate);
        this.lastMove = 0;
    }

    /** Bits per second the link is counted on for. */
    estimate() {
        return this.fast === null ? null : Math.min(this.fast, this.slow);
    }

    /** The variant (index, lowest first) to play next, playing `level` with `buffer` seconds ahead. */
    choose(variants, level, buffer, holdBack, now) {
        const estimate = this.estimate();
        if (estimate === null || variants.length < 2) return level;
        let fit = 0;
        for (let i = 0; i < variants.length; i++) if (variants[i].average <= 0.8 * estimate) fit = i;
        if (fit < level) return this.move(fit, now);
        const above = variants[level + 1];
        if (above && above.bandwidth <= 0.7 * estimate && buffer >= Math.min(holdBack, 1.5) && now - this.lastMove > 4000)
            return this.move(level + 1, now);
        return level;
    }

    move(level, now) {
        this.lastMove = now;
        return level;
    }
}

/** The player's methods for this job, taken on by ``OnairPlayer``. */
export class RateChoice {
    /** The variant to play next: the one pinned from the quality menu, or the rate chooser's. */
    wantedLevel() {
        if (this.pinned !== null) return Math.min(this.pinned, this.variants.length - 1);
        if (Date.now() < (this.switchFailedUntil || 0)) return this.level;
        return this.rate.choose(this.variants, this.level, this.bufferAhead(), this.holdBack(this.playlist), Date.now());
    }

    /** The quality menu: a variant's index (lowest bit rate first), or null for automatic. */
    setQuality(level) {
        this.pinned = level === null || level === undefined ? null : Number(level);
        if (this.engine === "mse") this.pump();
    }

    /** What plays, for the page: `720p`, with `auto` when the player chooses. */
    quality() {
        if (!this.variant || !this.variant.name) return null;
        return this.variant.name + (this.variants.length > 1 && this.pinned === null ? " (auto)" : "");
    }

    /**
     * Moves to another variant before the next unit: its playlist, which numbers segments and
     * parts as the one before did, so the next unit is the one after the last appended. False
     * when its playlist could not be had (tried again in 2 s).
     */
    async switchTo(level, generation) {
        const variant = this.variants[level];
        try {
            const response = await get(this.withSession(variant.uri), 4 * this.targetDuration());
            if (!response.ok) throw new Error("media playlist: HTTP " + response.status);
            const playlist = parseMediaPlaylist(await response.text(), response.url);
            if (generation !== this.generation) return false;
            const codecs = this.bufferCodecsOf(variant);
            if (variant.codecs && this.buffer.changeType && codecs !== this.bufferCodecs) {
                this.buffer.changeType('video/mp4; codecs="' + codecs + '"');
                this.bufferCodecs = codecs;
            }
            this.variant = variant;
            this.level = level;
            this.playlist = playlist;
            this.switches += 1;
            return true;
        } catch (error) {
            this.problem = String(error.message || error);
            this.switchFailedUntil = Date.now() + 2000;
            return false;
        }
    }
}
