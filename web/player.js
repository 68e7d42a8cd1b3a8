// onair's player: plays a live HLS channel in a <video>. It uses the browser's own HLS where
// there is one (Safari, iOS, recent Chrome and Edge) and otherwise its own Media Source
// Extensions engine for fMP4 (Firefox). No third-party code.
//
//   const player = new OnairPlayer(video, { playlist: "/live/demo/index.m3u8" });
//   player.onstate = (state) => …;   // "waiting", "live" or "ended"
//   player.start();
//
// `<video data-onair src=".../index.m3u8">` elements are set up on their own when this script loads.
//
// A channel published with `--dvr` can be rewound: `player.rewindTo(wallTime)` plays its rewind
// window (`dvr.m3u8?from=N` from the segment holding that moment, or `?delay=S` for the browser's
// own HLS) and `player.goLive()`
// comes back to the live edge; `player.rewindWindow()` says how far back it goes.
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

    /**
     * The media playlist's segments with their sequence numbers, durations and wall times, and
     * for Low-Latency HLS their parts, the parts of the segment being made and the server's promises.
     */
    function parseMediaPlaylist(text, base) {
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
        };
        let duration = 0;
        let dateTime = null;
        let discontinuity = false;
        let map = null;
        let parts = [];
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
            else if (line === "#EXT-X-ENDLIST") playlist.ended = true;
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
                });
                dateTime = dateTime === null ? null : dateTime + duration * 1000;
                discontinuity = false;
                parts = [];
            }
        }
        playlist.openParts = parts;
        playlist.openDateTime = dateTime;
        playlist.openDiscontinuity = discontinuity;
        playlist.openInit = map;
        return playlist;
    }

    /**
     * What the MSE engine appends, in order: a segment's parts while they are listed (Low-Latency
     * HLS), otherwise the whole segment. `part` is null for a whole segment. Each unit names its
     * init segment, and the first unit after a discontinuity (a restarted broadcast) says so.
     */
    function mediaUnits(playlist) {
        const units = [];
        const add = (sequence, parts, dateTime, discontinuity, init) => {
            let offset = 0;
            parts.forEach((part, index) => {
                units.push({
                    sequence,
                    part: index,
                    uri: part.uri,
                    duration: part.duration,
                    independent: part.independent,
                    dateTime: dateTime === null ? null : dateTime + offset * 1000,
                    discontinuity: discontinuity && index === 0,
                    init,
                });
                offset += part.duration;
            });
        };
        for (const segment of playlist.segments) {
            if (segment.parts.length)
                add(segment.sequence, segment.parts, segment.dateTime, segment.discontinuity, segment.init);
            else
                units.push({
                    sequence: segment.sequence,
                    part: null,
                    uri: segment.uri,
                    duration: segment.duration,
                    independent: true,
                    dateTime: segment.dateTime,
                    discontinuity: segment.discontinuity,
                    init: segment.init,
                });
        }
        add(
            playlist.mediaSequence + playlist.segments.length,
            playlist.openParts,
            playlist.openDateTime,
            playlist.openDiscontinuity,
            playlist.openInit,
        );
        return units;
    }

    /** True when `unit` comes after `last` (a whole segment covers all of its parts). */
    function isAfter(unit, last) {
        return (
            unit.sequence > last.sequence ||
            (unit.sequence === last.sequence && last.part !== null && unit.part !== null && unit.part > last.part)
        );
    }

    /** True when `unit` follows `last` with nothing between. */
    function follows(unit, last) {
        if (unit.sequence === last.sequence) return last.part !== null && unit.part === last.part + 1;
        return unit.sequence === last.sequence + 1 && (unit.part === null || unit.part === 0);
    }

    /**
     * The variants of a multivariant playlist, lowest bit rate first (empty for a media playlist),
     * each with its address, codecs, size and bit rates.
     */
    function parseVariants(text, base) {
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
     * The sound of a multivariant playlist when it has a playlist of its own (an `EXT-X-MEDIA`
     * audio rendition with a URI, named by the variants' `AUDIO`): its address, or null.
     */
    function parseSound(text, base, pathway) {
        const lines = text.split(/\r?\n/);
        const variantLines = lines.filter((l) => l.startsWith("#EXT-X-STREAM-INF:") && (!pathway || attribute(l, "PATHWAY-ID") === pathway));
        const groups = new Set(variantLines.map((l) => attribute(l, "AUDIO")));
        for (const line of lines) {
            if (!line.startsWith("#EXT-X-MEDIA:") || attribute(line, "TYPE") !== "AUDIO") continue;
            const uri = attribute(line, "URI");
            if (uri && groups.has(attribute(line, "GROUP-ID"))) return new URL(uri, base).href;
        }
        return null;
    }

    /**
     * Twin origins offered to players (content steering, or redundant variants): the pathways in
     * the order listed, and where each one's addresses start. Corresponding variants differ only
     * there (`http://a.example:8080` and `http://b.example:8080` before `/live/demo/media.m3u8`),
     * so any address of one pathway is the same file's on another with its start exchanged.
     * Null with one origin.
     */
    function parsePathways(variants) {
        const ids = [];
        for (const variant of variants) if (variant.pathway && !ids.includes(variant.pathway)) ids.push(variant.pathway);
        if (ids.length < 2) return null;
        const firsts = ids.map((id) => variants.find((variant) => variant.pathway === id).uri);
        let common = 0;
        const shortest = Math.min(...firsts.map((uri) => uri.length));
        while (common < shortest && firsts.every((uri) => uri[uri.length - 1 - common] === firsts[0][firsts[0].length - 1 - common])) common++;
        // The shared end from a path's start, so one address's start is never part of another's.
        const tail = firsts[0].slice(firsts[0].length - common);
        const slash = tail.indexOf("/", tail.indexOf("://") >= 0 ? tail.indexOf("://") + 3 : 0);
        if (slash < 0) return null;
        const kept = tail.length - slash;
        return { ids, prefixes: Object.fromEntries(ids.map((id, i) => [id, firsts[i].slice(0, firsts[i].length - kept)])) };
    }

    /** `uri` as served by pathway `to`, when it is any pathway's address; otherwise unchanged. */
    function onPathway(uri, pathways, to) {
        if (!pathways || !to) return uri;
        const target = pathways.prefixes[to];
        if (uri.startsWith(target + "/")) return uri;
        for (const id of pathways.ids) {
            const prefix = pathways.prefixes[id];
            if (uri.startsWith(prefix + "/")) return target + uri.slice(prefix.length);
        }
        return uri;
    }

    /** `EXT-X-CONTENT-STEERING`: the steering manifest's address and the pathway to start on, or null. */
    function parseSteering(text, base) {
        const line = text.split(/\r?\n/).find((l) => l.startsWith("#EXT-X-CONTENT-STEERING:"));
        const uri = line && attribute(line, "SERVER-URI");
        return uri ? { uri: new URL(uri, base).href, pathway: attribute(line, "PATHWAY-ID") } : null;
    }

    /** The video codecs of a CODECS list (what a video-only SourceBuffer takes). */
    function videoCodecs(codecs) {
        return codecs.split(",").filter((codec) => !/^(mp4a|ac-3|ec-3|opus|flac)/.test(codec.trim())).join(",");
    }

    /** The audio codecs of a CODECS list. */
    function audioCodecs(codecs) {
        return codecs.split(",").filter((codec) => /^(mp4a|ac-3|ec-3|opus|flac)/.test(codec.trim())).join(",");
    }

    /** A media playlist's address, asking for the part after its newest when the server holds reloads. */
    function blockingURL(uri, playlist) {
        const address = new URL(uri);
        address.searchParams.set("_HLS_msn", String(playlist.mediaSequence + playlist.segments.length));
        address.searchParams.set("_HLS_part", String(playlist.openParts.length));
        return address.href;
    }

    /**
     * Adaptive bit rate: which variant to play, from the measured throughput (two moving
     * averages, the lower counted) and the buffer. Down at once to the best that fits in 80 % of
     * the throughput; up one step at a time, once what is above fits in 70 % and the buffer holds,
     * and never sooner than 4 s after the last move.
     */
    class RateChooser {
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

    /** Waits until a SourceBuffer has no operation under way. */
    async function idle(buffer) {
        while (buffer.updating) await new Promise((resolve) => buffer.addEventListener("updateend", resolve, { once: true }));
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

    /**
     * A ladder's sound in the MSE engine, when it has a playlist of its own (`EXT-X-MEDIA`): a
     * SourceBuffer of its own, fed from the segment the video starts in, unit after unit, its
     * playlist reloaded as the video's is (held by the server until the next part with Low-Latency
     * HLS). The video changing variants leaves it be: every variant plays with this one sound.
     */
    class SoundTrack {
        constructor(player, uri, codecs) {
            this.player = player;
            this.uri = uri;
            this.buffer = player.mediaSource.addSourceBuffer('audio/mp4; codecs="' + codecs + '"');
            this.playlist = null;
            this.last = null;
            this.appendedInit = null;
            this.done = false;
        }

        /** Follows the sound until the channel ends or the player starts over (`generation`). */
        async run(generation) {
            const player = this.player;
            while (player.running && generation === player.generation && !this.done) {
                // Nothing to fetch before the video has chosen where it starts.
                if (player.startSequence === null) {
                    await sleep(0.1);
                    continue;
                }
                let wait = 0.1;
                // Its origin failed and the player is on a twin that is not passed over: asked there at once.
                let retryAtOnce = false;
                try {
                    const blocking = this.playlist && player.engine === "mse" && this.playlist.canBlockReload && !this.playlist.ended;
                    const address = player.withSession(blocking ? blockingURL(this.uri, this.playlist) : this.uri);
                    const pathway = player.pathway;
                    let response;
                    try {
                        response = await get(address, 4 * player.targetDuration());
                    } catch (error) {
                        retryAtOnce = player.failOver(pathway);
                        throw error;
                    }
                    if (response.status >= 500) retryAtOnce = player.failOver(pathway);
                    if (!response.ok) throw new Error("sound playlist: HTTP " + response.status);
                    const playlist = parseMediaPlaylist(await response.text(), response.url);
                    if (generation !== player.generation) return;
                    this.playlist = playlist;
                    for (let unit = this.nextUnit(); unit; unit = this.nextUnit()) {
                        let bytes = null;
                        try {
                            bytes = await player.fetchBytes(unit.uri);
                        } catch (error) {
                            // Gone (out of the window): on without it, as the video does.
                            if (!/HTTP 404/.test(String(error.message))) throw error;
                            player.skipped += 1;
                        }
                        if (generation !== player.generation) return;
                        if (bytes) await this.append(unit, bytes, generation);
                        if (generation !== player.generation) return;
                        this.last = unit;
                    }
                    if (playlist.ended && this.last !== null && !mediaUnits(playlist).some((u) => isAfter(u, this.last))) {
                        this.done = true;
                        player.endIfFinished();
                    }
                    wait = blocking ? 0 : Math.min(1, playlist.targetDuration / 2);
                } catch (error) {
                    player.problem = String(error.message || error);
                    wait = retryAtOnce ? 0 : 1;
                }
                if (wait > 0) await sleep(wait);
            }
        }

        /**
         * What to append next: once the video has started, the unit that begins the segment it
         * started in, then what follows the last appended.
         */
        nextUnit() {
            const start = this.player.startSequence;
            if (start === null || !this.playlist) return null;
            const units = mediaUnits(this.playlist);
            if (this.last === null) {
                return units.find((unit) => unit.sequence === start && (unit.part === null || unit.part === 0)) ||
                    units.find((unit) => unit.sequence > start) || null;
            }
            return units.find((unit) => isAfter(unit, this.last)) || null;
        }

        async append(unit, bytes, generation) {
            const init = unit.init || this.playlist.init;
            if (init && !this.player.sameFile(init, this.appendedInit)) {
                const header = await this.player.fetchBytes(init);
                if (generation !== this.player.generation) return;
                await idle(this.buffer);
                await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(header));
                this.appendedInit = init;
            }
            // After a discontinuity (a restarted broadcast) the sound goes where the video went.
            await idle(this.buffer);
            if (unit.discontinuity && this.last !== null) this.buffer.timestampOffset = this.player.buffer.timestampOffset;
            try {
                await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
            } catch (error) {
                if (error.name !== "QuotaExceededError") throw error;
                await this.player.trimBuffer(this.buffer, 5);
                await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
            }
        }
    }

    class OnairPlayer {
        /**
         * @param {HTMLVideoElement} video
         * @param {{playlist: string, engine?: "auto"|"native"|"mse", fromStart?: boolean, dvr?: string}} options
         *   `fromStart`: play a recording from its first segment, never catching up with its end.
         *   `dvr`: the channel's rewind window (`/live/<channel>/dvr.m3u8`), also settable later with `setRewindWindow`.
         */
        constructor(video, options) {
            this.video = video;
            this.playlistURL = new URL(options.playlist, location.href).href;
            /** The live playlist, and where the playlist played now came from: it or the rewind window. */
            this.liveURL = this.playlistURL;
            this.dvrURL = null;
            /** The rewind window as last read: its segments with their wall times; null before. */
            this.window = null;
            /** While rewound: the segment played from and the wall time asked for; null at live. */
            this.rewound = null;
            if (options.dvr) this.setRewindWindow(options.dvr);
            this.session = newSession();
            const native = video.canPlayType(HLS_TYPE) !== "";
            this.wanted = options.engine || "auto";
            this.fromStart = options.fromStart === true;
            this.engine = this.wanted === "auto" ? (native ? "native" : "mse") : this.wanted;
            this.state = null;
            this.onstate = null;
            this.variant = null;
            /** Every variant, lowest bit rate first; `level` is the one playing, `pinned` the one asked for. */
            this.variants = [];
            /** Twin origins (see `parsePathways`), the one played, and when one failed: passed over until then. */
            this.pathways = null;
            this.pathway = null;
            this.penalties = {};
            this.pathwayMoves = 0;
            this.level = 0;
            this.pinned = null;
            this.rate = new RateChooser();
            /** Variant changes so far (MSE), for the page and tests. */
            this.switches = 0;
            this.playlist = null;
            this.running = false;
            this.problem = null;
            /** When reloads began to fail (Date.now()), or null while they succeed. */
            this.failingSince = null;
            this.generation = 0;
            this.pumping = null;
            /** Segments given up on (MSE). */
            this.skipped = 0;
            video.addEventListener("error", () => {
                // A stream the browser gave up on: start again from the live edge on the next reload.
                if (this.attached) this.detach();
            });
            // A seek outside what is buffered (the video's own controls, a script setting currentTime
            // within `seekable`): played from the rewind window, or from the live edge when it is near.
            video.addEventListener("seeking", () => {
                if (this.engine !== "mse" || !this.window || !this.attached || this.isBuffered(video.currentTime)) return;
                const wall = this.wallOf(video.currentTime);
                if (wall !== null) this.rewindTo(wall);
            });
        }

        /**
         * The live playlist to play, before `start()`: a private channel's comes with its token, and
         * coming back from the rewind window goes to it.
         */
        setLivePlaylist(url) {
            this.playlistURL = this.liveURL = new URL(url, location.href).href;
        }

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
                if (segments.length) this.window = { segments, ended: playlist.ended };
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
            clearInterval(this.windowTimer);
            clearTimeout(this.steeringTimer);
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

        /**
         * The multivariant playlist's variants and sound, on the pathway played (kept across
         * readings), or the steering manifest's first, or the playlist's.
         */
        readPathways(text, base) {
            const all = parseVariants(text, base);
            this.pathways = parsePathways(all);
            if (this.pathways && !this.pathways.ids.includes(this.pathway)) {
                const steering = parseSteering(text, base);
                this.pathway = (steering && this.pathways.ids.includes(steering.pathway) && steering.pathway) || this.pathways.ids[0];
                if (steering && !this.steering) this.steer(steering.uri);
            }
            if (!this.pathways) this.pathway = null;
            this.variantText = { text, base };
            this.variants = this.pathway ? all.filter((variant) => variant.pathway === this.pathway) : all;
            this.soundURI = parseSound(text, base, this.pathway);
        }

        /**
         * True when two addresses name the same file, on one pathway or two: an init segment is
         * appended again only when it is another (appending one makes the browser drop media up
         * to the next keyframe).
         */
        sameFile(a, b) {
            return a === b || (a !== null && b !== null && this.onPathway(a) === this.onPathway(b));
        }

        /** Any address of the channel's files, on the pathway played. */
        onPathway(uri) {
            return onPathway(uri, this.pathways, this.pathway);
        }

        /**
         * Plays on from pathway `id`: the same variant there, the same playlist state (its twin
         * numbers segments and parts alike), so the next reload and the next unit come from it.
         */
        usePathway(id) {
            if (!this.pathways || id === this.pathway || !this.pathways.ids.includes(id)) return;
            this.pathway = id;
            this.pathwayMoves += 1;
            const { text, base } = this.variantText;
            this.variants = parseVariants(text, base).filter((variant) => variant.pathway === id);
            this.soundURI = parseSound(text, base, id);
            if (this.variant) this.variant = this.variants[Math.min(this.level, this.variants.length - 1)];
            if (this.sound && this.soundURI) this.sound.uri = this.soundURI;
            // The browser's HLS starts again on the twin, at the next reload.
            if (this.engine === "native" && this.attached && this.playlistURL === this.liveURL) this.detach();
        }

        /**
         * Pathway `from` failed (a request refused, unanswered or 5xx): it is passed over for 30 s,
         * and the player moves to the first pathway the steering manifest ranks that is not, or
         * when every one is, to the one passed over longest ago. True when the pathway played now
         * is one to ask at once: moved to just now, or by another request, and not passed over.
         */
        failOver(from) {
            if (!this.pathways) return false;
            const now = Date.now();
            if (from === this.pathway) {
                this.penalties[from] = now + 30000;
                const others = this.pathways.ids.filter((id) => id !== from);
                const next = others.find((id) => !(this.penalties[id] > now)) ||
                    others.sort((a, b) => (this.penalties[a] || 0) - (this.penalties[b] || 0))[0];
                this.usePathway(this.rankedPathways().find((id) => id !== from && !(this.penalties[id] > now)) || next);
            }
            return !(this.penalties[this.pathway] > now);
        }

        /** The pathways best first: by the steering manifest's priority, those passed over last. */
        rankedPathways() {
            const ids = this.pathways ? this.pathways.ids : [];
            const priority = (this.priority || []).filter((id) => ids.includes(id)).concat(ids.filter((id) => !(this.priority || []).includes(id)));
            const now = Date.now();
            return priority.filter((id) => !(this.penalties[id] > now)).concat(priority.filter((id) => this.penalties[id] > now));
        }

        /**
         * Reads the steering manifest (on the pathway played) and again every TTL seconds; moves to
         * the pathway it ranks first when that one is not passed over (the MSE engine at any time,
         * the browser's HLS before it starts).
         */
        async steer(uri) {
            this.steering = uri;
            let wait = 30;
            try {
                const address = new URL(this.onPathway(uri));
                if (this.pathway) address.searchParams.set("_HLS_pathway", this.pathway);
                const response = await get(address.href, 10);
                if (!response.ok) throw new Error("steering manifest: HTTP " + response.status);
                const manifest = await response.json();
                if (Array.isArray(manifest["PATHWAY-PRIORITY"])) this.priority = manifest["PATHWAY-PRIORITY"].map(String);
                if (manifest["RELOAD-URI"]) this.steering = new URL(manifest["RELOAD-URI"], response.url).href;
                wait = Math.max(1, Number(manifest.TTL) || 300);
                // The browser's HLS would start again to move: it stays until its pathway fails.
                const best = this.rankedPathways()[0];
                const settled = this.engine === "native" && this.attached;
                if (best && !settled && !(this.penalties[best] > Date.now())) this.usePathway(best);
            } catch (error) {
                // Its server is away: the pathways keep their order, asked again later.
            }
            if (!this.running) return;
            this.steeringTimer = setTimeout(() => this.steer(this.steering), wait * 1000);
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
            if (!this.attached && this.wanted === "auto" && (playlist.partTarget || this.variants.length > 1) && this.canUseMSE()) {
                // A Low-Latency channel: this player plays its parts; the browser's own HLS may not.
                // Several variants: this player steps down before the buffer runs dry; the browser's may not.
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
            return "MediaSource" in global && MediaSource.isTypeSupported('video/mp4; codecs="' + codecs + '"');
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

        /**
         * Once, soon after the start: moves the playhead to the frame captured the hold-back ago
         * by the wall clock (PROGRAM-DATE-TIME), when that frame is buffered. Starting at the
         * beginning of the chosen unit would add up to a unit's length to the latency.
         */
        position() {
            if (this.positioned || !this.startedPlaying || !this.timeline.length) return;
            if (this.rewound) {
                this.positioned = true;
                return;
            }
            const video = this.video;
            const buffered = video.buffered;
            const wanted = Date.now() - this.holdBack(this.playlist) * 1000;
            const unit = this.timeline.find((u) => u.dateTime !== null && u.dateTime <= wanted && wanted < u.dateTime + (u.end - u.start) * 1000);
            if (unit) {
                const time = unit.start + (wanted - unit.dateTime) / 1000;
                const end = buffered.end(buffered.length - 1);
                if (time > video.currentTime && time < end - 0.1) {
                    video.currentTime = time;
                    this.positioned = true;
                }
            }
            if (Date.now() - this.startedAt > 5000) this.positioned = true;
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
            this.updateSeekable(end);
            if (video.paused || video.seeking || !this.playlist) return;
            this.position();
            const holdBack = this.holdBack(this.playlist);
            // How much more than the hold-back may build up before speeding up, and before jumping.
            const slack = this.playlist.partTarget ? 0.3 : 1.5 * this.playlist.targetDuration;
            const jump = this.playlist.partTarget ? 1.5 : 4 * this.playlist.targetDuration;
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
            } else if (this.fromStart || this.rewound) {
                return;
            } else if (this.state === "live" && behind > holdBack + jump) {
                video.currentTime = end - holdBack;
            } else if (this.state === "live" && behind > holdBack + slack) {
                video.playbackRate = 1.1;
            } else if (video.playbackRate !== 1 && behind < holdBack + slack / 3) {
                video.playbackRate = 1;
            }
        }
    }

    global.OnairPlayer = OnairPlayer;
    global.OnairPlayer.parseMediaPlaylist = parseMediaPlaylist;
    global.OnairPlayer.parseVariants = parseVariants;
    global.OnairPlayer.parseSound = parseSound;
    global.OnairPlayer.parsePathways = parsePathways;
    global.OnairPlayer.onPathway = onPathway;
    global.OnairPlayer.RateChooser = RateChooser;

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
