// Feeding the buffers (the MSE engine): the MediaSource and its SourceBuffers, the next unit to
// fetch, fetching it (given up when too slow for the rate it plays at), appending, trimming.

import { get, sleep } from "./network.js";
import { audioCodecs, videoCodecs } from "./playlists.js";
import { CaptionTrack } from "./caption-track.js";
import { SoundTrack } from "./sound-track.js";
import { idle, sourceBufferDone } from "./source-buffers.js";
import { follows, isAfter, mediaUnits } from "./units.js";

/** The player's methods for this job, taken on by ``OnairPlayer``. */
export class Feeding {
    /** The codecs of the video SourceBuffer: a variant's, less the sound's when that has its own. */
    bufferCodecsOf(variant) {
        const codecs = (variant && variant.codecs) || "avc1.64001f,mp4a.40.2";
        return this.soundURI ? videoCodecs(codecs) : codecs;
    }

    attach() {
        this.attached = true;
        this.timeline = [];
        this.lastBufferedEnd = 0;
        this.offset = null;
        this.startedPlaying = false;
        this.positioned = false;
        if (this.engine === "native") {
            // With twins, the browser's HLS gets the media playlist of the pathway played: it
            // neither follows steering nor moves between redundant variants by itself (Chromium
            // stays on the one it chose and stalls when that origin dies), so this player moves
            // it. Twins are other sites: asked with CORS, so the page may still read the picture.
            const onTwins = this.pathways && this.playlistURL === this.liveURL && this.variant;
            if (onTwins) this.video.crossOrigin = "anonymous";
            this.video.src = this.withSession(onTwins ? this.variant.uri : this.onPathway(this.playlistURL));
            this.play();
            return;
        }
        this.last = null;
        this.startSequence = null;
        this.buffer = null;
        this.sound = null;
        this.mediaSource = new MediaSource();
        this.opened = new Promise((resolve) =>
            this.mediaSource.addEventListener("sourceopen", resolve, { once: true })
        );
        this.video.src = URL.createObjectURL(this.mediaSource);
    }

    detach() {
        if (!this.attached) return;
        this.attached = false;
        this.generation += 1;
        this.video.removeAttribute("src");
        this.video.load();
    }

    play() {
        const attempt = this.video.play();
        if (!attempt) return;
        attempt.catch((error) => {
            // Browsers only let muted video start on its own; start muted, the page offers sound.
            if (error.name === "NotAllowedError" && !this.video.muted) {
                this.video.muted = true;
                this.video.play().catch(() => {});
            }
        });
    }

    /** MSE: fetches and appends the segments after the last one appended, in order. */
    async pump() {
        const generation = this.generation;
        if (this.pumping === generation) return;
        this.pumping = generation;
        try {
            await this.opened;
            if (!this.buffer) {
                const codecs = this.bufferCodecsOf(this.variant);
                this.buffer = this.mediaSource.addSourceBuffer('video/mp4; codecs="' + codecs + '"');
                this.bufferCodecs = codecs;
                this.appendedInit = null;
                // Both SourceBuffers before anything is appended: browsers take no new one after.
                if (this.soundURI) {
                    const sound = audioCodecs((this.variant && this.variant.codecs) || "") || "mp4a.40.2";
                    this.sound = new SoundTrack(this, this.soundURI, sound);
                    this.sound.run(generation);
                }
                // One text track for the player's life: the video keeps its tracks across restarts.
                if (this.subtitles) {
                    if (!this.captions) this.captions = new CaptionTrack(this, this.subtitles);
                    this.captions.uri = this.subtitles.uri;
                    this.captions.run(generation);
                }
            }
            while (this.running && generation === this.generation) {
                const unit = this.nextUnit(this.playlist);
                if (!unit) break;
                if (this.startSequence === null) this.startSequence = unit.sequence;
                // Variants change where a unit starts with a keyframe: segments and parts line up in all.
                const wanted = this.wantedLevel();
                if (wanted !== this.level && unit.independent && this.last !== null) {
                    if (await this.switchTo(wanted, generation)) continue;
                }
                await this.trim();
                let bytes = null;
                try {
                    bytes = await this.fetchUnit(unit);
                } catch (error) {
                    // Too slow for the buffer left: the same unit again, from a lower variant.
                    if (error.abandoned) continue;
                    // Missing, or unreachable three times: go on without it (tick() jumps the gap).
                    this.problem = String(error.message || error);
                    this.skipped += 1;
                }
                if (generation !== this.generation) return;
                if (bytes) {
                    await this.prepareFor(unit);
                    await this.appendUnit(unit, bytes);
                }
                this.last = unit;
            }
            this.endIfFinished();
        } catch (error) {
            this.problem = String(error.message || error);
            if (generation === this.generation) {
                // Start over: a fresh MediaSource at the live edge on the next reload.
                this.detach();
            }
        } finally {
            if (this.pumping === generation) this.pumping = null;
        }
    }

    /**
     * Before a unit: its init segment when it is not the one appended last, and after a
     * discontinuity (a restarted broadcast, whose timestamps start again at 0) an offset that
     * puts it right after what is buffered.
     */
    async prepareFor(unit) {
        const init = unit.init || this.playlist.init;
        if (init && !this.sameFile(init, this.appendedInit)) {
            const bytes = await this.fetchBytes(init);
            await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
            this.appendedInit = init;
        }
        const ranges = this.buffer.buffered;
        if (unit.discontinuity && this.last !== null && ranges.length) {
            this.buffer.timestampOffset = ranges.end(ranges.length - 1);
        }
    }

    /** What to append next: what follows the last appended, or after a hole a new start. */
    nextUnit(playlist) {
        const units = mediaUnits(playlist);
        if (this.last === null) return this.startUnit(playlist, units);
        const after = units.find((unit) => isAfter(unit, this.last));
        if (!after || follows(after, this.last)) return after || null;
        // Fell out of the playlist (or out of its parts): start again near the live edge.
        return this.startUnit(playlist, units);
    }

    /**
     * Where a viewer starts: HOLD-BACK (three target durations) from the end, or with parts
     * PART-HOLD-BACK, moved back to a unit that starts with a keyframe.
     */
    startUnit(playlist, units) {
        if (this.fromStart || this.rewound) return units[0] || null;
        const holdBack = this.holdBack(playlist);
        let ahead = 0;
        let index = units.length - 1;
        for (; index > 0; index--) {
            ahead += units[index].duration;
            if (ahead >= holdBack) break;
        }
        while (index > 0 && !units[index].independent) index--;
        return units[Math.max(0, index)] || null;
    }

    /** How far behind the newest media this player plays. */
    holdBack(playlist) {
        if (playlist.partTarget && this.engine === "mse") return playlist.partHoldBack || 3 * playlist.partTarget;
        return 3 * playlist.targetDuration;
    }

    /** The bytes of a file, tried three times over 1.5 s; a 404 is not tried again. */
    async fetchBytes(url) {
        for (let attempt = 0; ; attempt++) {
            let missing = false;
            const pathway = this.pathway;
            try {
                const response = await get(this.onPathway(url), 10);
                missing = response.status === 404;
                if (!response.ok) throw new Error(url.split("/").pop() + ": HTTP " + response.status);
                return await response.arrayBuffer();
            } catch (error) {
                if (missing || attempt === 2) throw error;
                // On a twin at once, when there is one; the same server again a moment later otherwise.
                if (!this.failOver(pathway)) await sleep(0.5 * (attempt + 1));
            }
        }
    }

    /**
     * A media unit's bytes, read as they arrive, which tell the rate chooser how fast the link is.
     * A download that cannot finish before the buffer runs dry is given up (an error with
     * `abandoned`) while a lower variant can still be had, so playback steps down instead of stalling.
     */
    async fetchUnit(unit) {
        for (let attempt = 0; ; attempt++) {
            const controller = new AbortController();
            const timer = setTimeout(() => controller.abort(), 10000);
            const started = performance.now();
            let missing = false;
            const pathway = this.pathway;
            try {
                const response = await fetch(this.onPathway(unit.uri), { cache: "no-store", signal: controller.signal });
                missing = response.status === 404;
                if (!response.ok) throw new Error(unit.uri.split("/").pop() + ": HTTP " + response.status);
                const total = parseInt(response.headers.get("content-length"), 10) || 0;
                const reader = response.body.getReader();
                const bytes = new Uint8Array(total || 1 << 20);
                let received = 0;
                let into = bytes;
                for (;;) {
                    const { done, value } = await reader.read();
                    if (done) break;
                    if (received + value.byteLength > into.length) {
                        const larger = new Uint8Array(Math.max(into.length * 2, received + value.byteLength));
                        larger.set(into.subarray(0, received));
                        into = larger;
                    }
                    into.set(value, received);
                    received += value.byteLength;
                    const seconds = (performance.now() - started) / 1000;
                    if (this.tooSlow(received, total, seconds)) {
                        this.rate.slowLink((received * 8) / seconds);
                        controller.abort();
                        throw Object.assign(new Error("too slow for the buffer: a lower quality"), { abandoned: true });
                    }
                }
                this.rate.measured(received, (performance.now() - started) / 1000);
                return into.buffer.slice(0, received);
            } catch (error) {
                if (error.abandoned || missing || attempt === 2) throw error;
                if (!this.failOver(pathway)) await sleep(0.5 * (attempt + 1));
            } finally {
                clearTimeout(timer);
            }
        }
    }

    /** True when a download going at its rate so far would end after the buffer has run out. */
    tooSlow(received, total, seconds) {
        if (this.level === 0 || this.pinned !== null || seconds < 0.3 || total <= received) return false;
        const rate = (received * 8) / seconds;
        const left = ((total - received) * 8) / Math.max(rate, 1);
        return left > this.bufferAhead() - 0.5;
    }

    async appendUnit(unit, bytes) {
        const ranges = this.buffer.buffered;
        const before = ranges.length ? ranges.end(ranges.length - 1) : null;
        try {
            await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
        } catch (error) {
            if (error.name !== "QuotaExceededError") throw error;
            await this.trimBuffer(this.buffer, 5);
            await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
        }
        const after = this.buffer.buffered;
        if (!after.length) return;
        const previous = this.timeline[this.timeline.length - 1];
        const rangeStart = after.start(after.length - 1);
        // Right after the previous unit, or the start of a new range after a gap.
        const start =
            previous && follows(unit, previous.unit) && before !== null && rangeStart <= before + 0.5
                ? previous.end
                : rangeStart;
        this.timeline.push({ unit, start, end: start + unit.duration, dateTime: unit.dateTime });
        if (this.timeline.length > 200) this.timeline.shift();
        if (!this.startedPlaying) {
            this.startedPlaying = true;
            this.startedAt = Date.now();
            // Rewound: the moment asked for, inside this first segment.
            const into = this.rewound && unit.dateTime !== null ? (this.rewound.wall - unit.dateTime) / 1000 : 0;
            this.video.currentTime = start + Math.min(Math.max(0, into), Math.max(0, unit.duration - 0.1));
            this.play();
        }
    }

    /** Keeps at most `keep` seconds behind the playhead in the SourceBuffers. */
    async trim(keep = 30) {
        await this.trimBuffer(this.buffer, keep);
        if (this.sound) await this.trimBuffer(this.sound.buffer, keep);
    }

    async trimBuffer(buffer, keep) {
        await idle(buffer);
        const ranges = buffer.buffered;
        if (!ranges.length) return;
        const end = this.video.currentTime - keep;
        if (end - ranges.start(0) > 10) {
            await sourceBufferDone(buffer, () => buffer.remove(0, end));
        }
    }
}
