// onair's player: plays a live HLS channel in a <video>. It uses the browser's own HLS where
// there is one (Safari, iOS, recent Chrome and Edge) and otherwise its own Media Source
// Extensions engine for fMP4 (Firefox). No third-party code.
//
//   const player = new OnairPlayer(video, { playlist: "/live/demo/index.m3u8" });
//   player.onstate = (state) => …;   // "waiting", "live" or "ended"
//   player.start();
//
// `<video data-onair src=".../index.m3u8">` elements are set up on their own when this script loads.
"use strict";

(function (global) {
    const HLS_TYPE = "application/vnd.apple.mpegurl";

    /** A string of random letters and digits that tells this player apart on the server. */
    function newSession() {
        const bytes = new Uint8Array(8);
        crypto.getRandomValues(bytes);
        return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    }

    /** The value of one attribute of a tag line: `CODECS="avc1.64001f,mp4a.40.2"`. */
    function attribute(line, name) {
        const match = new RegExp("[:,]" + name + '=("[^"]*"|[^,]*)').exec(line);
        return match ? match[1].replace(/^"|"$/g, "") : null;
    }

    /** The media playlist's segments with their sequence numbers, durations and wall times. */
    function parseMediaPlaylist(text, base) {
        const lines = text.split(/\r?\n/);
        if (lines[0].trim() !== "#EXTM3U") throw new Error("not a playlist");
        const playlist = { targetDuration: 2, mediaSequence: 0, segments: [], ended: false, init: null };
        let duration = 0;
        let dateTime = null;
        let discontinuity = false;
        for (const raw of lines) {
            const line = raw.trim();
            if (line.startsWith("#EXT-X-TARGETDURATION:")) playlist.targetDuration = parseFloat(line.slice(22));
            else if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) playlist.mediaSequence = parseInt(line.slice(22), 10);
            else if (line.startsWith("#EXT-X-MAP:")) playlist.init = new URL(attribute(line, "URI"), base).href;
            else if (line.startsWith("#EXTINF:")) duration = parseFloat(line.slice(8));
            else if (line.startsWith("#EXT-X-PROGRAM-DATE-TIME:")) dateTime = Date.parse(line.slice(25));
            else if (line === "#EXT-X-DISCONTINUITY") discontinuity = true;
            else if (line === "#EXT-X-ENDLIST") playlist.ended = true;
            else if (line && !line.startsWith("#")) {
                playlist.segments.push({
                    uri: new URL(line, base).href,
                    sequence: playlist.mediaSequence + playlist.segments.length,
                    duration,
                    dateTime,
                    discontinuity,
                });
                dateTime = dateTime === null ? null : dateTime + duration * 1000;
                discontinuity = false;
            }
        }
        return playlist;
    }

    /** The first variant of a multivariant playlist, or null for a media playlist. */
    function parseMultivariantPlaylist(text, base) {
        const lines = text.split(/\r?\n/);
        if (lines[0].trim() !== "#EXTM3U") throw new Error("not a playlist");
        for (let i = 0; i < lines.length; i++) {
            if (!lines[i].startsWith("#EXT-X-STREAM-INF:")) continue;
            const uri = lines.slice(i + 1).find((line) => line.trim() && !line.startsWith("#"));
            const resolution = (attribute(lines[i], "RESOLUTION") || "").split("x").map(Number);
            return {
                uri: new URL(uri.trim(), base).href,
                codecs: attribute(lines[i], "CODECS"),
                width: resolution[0] || 0,
                height: resolution[1] || 0,
            };
        }
        return null;
    }

    function sleep(seconds) {
        return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }

    /** GET with a time limit; resolves to the response, rejects on a network error or timeout. */
    async function get(url, seconds) {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), seconds * 1000);
        try {
            return await fetch(url, { cache: "no-store", signal: controller.signal });
        } finally {
            clearTimeout(timer);
        }
    }

    /** Waits for a SourceBuffer operation (append or remove) to finish. */
    function sourceBufferDone(buffer, start) {
        return new Promise((resolve, reject) => {
            const finish = (ok) => () => {
                buffer.removeEventListener("updateend", succeeded);
                buffer.removeEventListener("error", failed);
                ok ? resolve() : reject(new Error("the browser refused the media"));
            };
            const succeeded = finish(true);
            const failed = finish(false);
            buffer.addEventListener("updateend", succeeded);
            buffer.addEventListener("error", failed);
            try {
                start();
            } catch (error) {
                buffer.removeEventListener("updateend", succeeded);
                buffer.removeEventListener("error", failed);
                reject(error);
            }
        });
    }

    class OnairPlayer {
        /**
         * @param {HTMLVideoElement} video
         * @param {{playlist: string, engine?: "auto"|"native"|"mse"}} options
         */
        constructor(video, options) {
            this.video = video;
            this.playlistURL = new URL(options.playlist, location.href).href;
            this.session = newSession();
            const native = video.canPlayType(HLS_TYPE) !== "";
            const wanted = options.engine || "auto";
            this.engine = wanted === "auto" ? (native ? "native" : "mse") : wanted;
            this.state = null;
            this.onstate = null;
            this.variant = null;
            this.playlist = null;
            this.running = false;
            this.problem = null;
            this.generation = 0;
            this.pumping = null;
            /** Segments given up on (MSE). */
            this.skipped = 0;
            video.addEventListener("error", () => {
                // A stream the browser gave up on: start again from the live edge on the next reload.
                if (this.attached) this.detach();
            });
        }

        /** Starts following the channel: waits for it, plays it, notices its end. */
        start() {
            if (this.running) return;
            this.running = true;
            this.setState("waiting");
            this.timer = setInterval(() => this.tick(), 250);
            this.follow();
        }

        stop() {
            this.running = false;
            clearInterval(this.timer);
            this.detach();
        }

        /** Seconds between the wall time of the frame on screen and this computer's clock. */
        latency() {
            const wall = this.wallTime(this.video.currentTime);
            return wall === null || this.video.readyState < 2 ? null : (Date.now() - wall) / 1000;
        }

        /** Seconds of media from the newest buffered frame back to the one on screen. */
        bufferAhead() {
            const buffered = this.video.buffered;
            return buffered.length ? buffered.end(buffered.length - 1) - this.video.currentTime : 0;
        }

        withSession(url) {
            const address = new URL(url);
            address.searchParams.set("session", this.session);
            return address.href;
        }

        setState(state) {
            if (state === this.state) return;
            this.state = state;
            if (this.onstate) this.onstate(state);
        }

        /** Reloads the playlist until the channel ends (or forever while it does not exist). */
        async follow() {
            while (this.running) {
                let wait = 1;
                try {
                    await this.reload();
                    this.problem = null;
                    if (this.playlist) wait = Math.min(1, this.playlist.targetDuration / 2);
                    if (this.playlist && this.playlist.ended && this.finished()) return;
                } catch (error) {
                    this.problem = String(error.message || error);
                    if (this.state !== "ended") this.setState("waiting");
                    wait = 2;
                }
                await sleep(wait);
            }
        }

        async reload() {
            if (!this.variant) {
                const response = await get(this.withSession(this.playlistURL), 10);
                if (!response.ok) throw new Error("playlist: HTTP " + response.status);
                const text = await response.text();
                this.variant = parseMultivariantPlaylist(text, response.url) || {
                    uri: this.playlistURL,
                    codecs: null,
                    width: 0,
                    height: 0,
                };
            }
            const response = await get(this.withSession(this.variant.uri), 10);
            if (!response.ok) {
                if (response.status === 404) this.variant = null;
                throw new Error("media playlist: HTTP " + response.status);
            }
            const playlist = parseMediaPlaylist(await response.text(), response.url);
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
            if (!this.attached && this.canStart(playlist)) this.attach();
            if (this.engine === "mse") this.pump();
            this.setState(playlist.ended ? "ended" : "live");
        }

        /**
         * Whether to hand the stream to the player yet. Native players want the playlist to hold
         * the three target durations they start behind (Chromium refuses a shorter one); this
         * player's MSE engine starts with whatever is there.
         */
        canStart(playlist) {
            const listed = playlist.segments.reduce((sum, segment) => sum + segment.duration, 0);
            return this.engine === "mse" || playlist.ended || listed >= 3 * playlist.targetDuration - 0.5;
        }

        newest(playlist) {
            return playlist.mediaSequence + playlist.segments.length - 1;
        }

        /** True once the player has everything of an ended channel it will fetch. */
        finished() {
            return this.engine === "native" || (this.next !== null && this.next > this.newest(this.playlist));
        }

        attach() {
            this.attached = true;
            this.timeline = [];
            this.lastBufferedEnd = 0;
            this.offset = null;
            this.startedPlaying = false;
            if (this.engine === "native") {
                this.video.src = this.withSession(this.playlistURL);
                this.play();
                return;
            }
            this.next = null;
            this.buffer = null;
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
                    const codecs = (this.variant && this.variant.codecs) || "avc1.64001f,mp4a.40.2";
                    this.buffer = this.mediaSource.addSourceBuffer('video/mp4; codecs="' + codecs + '"');
                    const init = await this.fetchBytes(this.playlist.init);
                    await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(init));
                }
                while (this.running && generation === this.generation) {
                    const playlist = this.playlist;
                    const first = playlist.segments[0].sequence;
                    if (this.next === null || this.next < first) this.next = this.startSequence(playlist);
                    const segment = playlist.segments.find((s) => s.sequence === this.next);
                    if (!segment) break;
                    await this.trim();
                    let bytes = null;
                    try {
                        bytes = await this.fetchBytes(segment.uri);
                    } catch (error) {
                        // Missing, or unreachable three times: go on without it (tick() jumps the gap).
                        this.problem = String(error.message || error);
                        this.skipped += 1;
                    }
                    if (generation !== this.generation) return;
                    if (bytes) await this.appendSegment(segment, bytes);
                    this.next = segment.sequence + 1;
                }
                if (this.playlist.ended && this.next > this.newest(this.playlist) && !this.buffer.updating) {
                    if (this.mediaSource.readyState === "open") this.mediaSource.endOfStream();
                }
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

        /** Where a new viewer starts: the segment three target durations from the end (HOLD-BACK). */
        startSequence(playlist) {
            let ahead = 0;
            for (let i = playlist.segments.length - 1; i >= 0; i--) {
                ahead += playlist.segments[i].duration;
                if (ahead >= 3 * playlist.targetDuration) return playlist.segments[i].sequence;
            }
            return playlist.segments[0].sequence;
        }

        /** The bytes of a file, tried three times over 1.5 s; a 404 is not tried again. */
        async fetchBytes(url) {
            for (let attempt = 0; ; attempt++) {
                let missing = false;
                try {
                    const response = await get(url, 10);
                    missing = response.status === 404;
                    if (!response.ok) throw new Error(url.split("/").pop() + ": HTTP " + response.status);
                    return await response.arrayBuffer();
                } catch (error) {
                    if (missing || attempt === 2) throw error;
                    await sleep(0.5 * (attempt + 1));
                }
            }
        }

        async appendSegment(segment, bytes) {
            const ranges = this.buffer.buffered;
            const before = ranges.length ? ranges.end(ranges.length - 1) : null;
            try {
                await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
            } catch (error) {
                if (error.name !== "QuotaExceededError") throw error;
                await this.trim(5);
                await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
            }
            const after = this.buffer.buffered;
            if (!after.length) return;
            const last = this.timeline[this.timeline.length - 1];
            const rangeStart = after.start(after.length - 1);
            // Contiguous with the previous segment, or the start of a new range after a gap.
            const start =
                last && last.sequence === segment.sequence - 1 && before !== null && rangeStart <= before + 0.5
                    ? last.end
                    : rangeStart;
            this.timeline.push({ sequence: segment.sequence, start, end: start + segment.duration, dateTime: segment.dateTime });
            if (this.timeline.length > 64) this.timeline.shift();
            if (!this.startedPlaying) {
                this.startedPlaying = true;
                this.video.currentTime = start;
                this.play();
            }
        }

        /** Keeps at most `keep` seconds behind the playhead in the SourceBuffer. */
        async trim(keep = 30) {
            const ranges = this.buffer.buffered;
            if (!ranges.length) return;
            const end = this.video.currentTime - keep;
            if (end - ranges.start(0) > 10) {
                await sourceBufferDone(this.buffer, () => this.buffer.remove(0, end));
            }
        }

        /** Wall time (ms since 1970) of a media time, or null before it is known. */
        wallTime(time) {
            if (this.engine === "native") return this.offset === null ? null : this.offset + time * 1000;
            const segment = (this.timeline || []).find((s) => s.start <= time && time < s.end + 0.05);
            return segment && segment.dateTime !== null ? segment.dateTime + (time - segment.start) * 1000 : null;
        }

        /** Four times a second: latency bookkeeping, and for MSE gap jumping and catching up. */
        tick() {
            const video = this.video;
            const buffered = video.buffered;
            if (!this.attached || !buffered.length) return;
            const end = buffered.end(buffered.length - 1);
            if (this.engine === "native") {
                // The browser appends the newest listed segment as it appears: its end is that wall time.
                const segments = this.playlist ? this.playlist.segments : [];
                const newest = segments[segments.length - 1];
                if (end > this.lastBufferedEnd + 0.1 && newest && newest.dateTime !== null) {
                    this.offset = newest.dateTime + newest.duration * 1000 - end * 1000;
                }
                this.lastBufferedEnd = end;
                return;
            }
            if (video.paused || video.seeking || !this.playlist) return;
            const target = this.playlist.targetDuration;
            const holdBack = 3 * target;
            const behind = end - video.currentTime;
            const inRange = Array.from({ length: buffered.length }, (_, i) => i).find(
                (i) => buffered.start(i) <= video.currentTime + 0.1 && video.currentTime < buffered.end(i) - 0.1
            );
            if (inRange === undefined) {
                // A gap (a missing segment, or the start): go on at the next buffered media.
                for (let i = 0; i < buffered.length; i++) {
                    if (buffered.start(i) > video.currentTime) {
                        video.currentTime = buffered.start(i) + 0.05;
                        return;
                    }
                }
            } else if (this.state === "live" && behind > holdBack + 4 * target) {
                video.currentTime = end - holdBack;
            } else if (this.state === "live" && behind > holdBack + 1.5 * target) {
                video.playbackRate = 1.1;
            } else if (video.playbackRate !== 1 && behind < holdBack + 0.5 * target) {
                video.playbackRate = 1;
            }
        }
    }

    global.OnairPlayer = OnairPlayer;
    global.OnairPlayer.parseMediaPlaylist = parseMediaPlaylist;
    global.OnairPlayer.parseMultivariantPlaylist = parseMultivariantPlaylist;

    // `<video data-onair src="…m3u8">` on any page: played by the browser's HLS where it has one,
    // with MSE elsewhere (or everywhere with `data-onair="mse"`), started when the channel is
    // live and started again after an error. Without this script the browser plays the src itself.
    function enhance() {
        for (const video of document.querySelectorAll("video[data-onair]")) {
            if (video.onairPlayer) continue;
            const source = video.getAttribute("src");
            video.removeAttribute("src");
            const engine = video.dataset.onair === "mse" ? "mse" : "auto";
            video.onairPlayer = new OnairPlayer(video, { playlist: source, engine });
            video.onairPlayer.start();
        }
    }
    if (typeof document !== "undefined") {
        if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", enhance);
        else enhance();
    }
})(window);
