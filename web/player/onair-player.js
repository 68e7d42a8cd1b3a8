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

import { Feeding } from "./feeding.js";
import { Following } from "./following.js";
import { LiveEdge } from "./live-edge.js";
import { Pathways } from "./pathways.js";
import { RateChoice, RateChooser } from "./rate.js";
import { Rewind } from "./rewind.js";
import { newSession } from "./network.js";

const HLS_TYPE = "application/vnd.apple.mpegurl";

export class OnairPlayer {
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
}

// Each job's methods, from the files named after it.
for (const job of [Pathways, RateChoice, Following, Feeding, Rewind, LiveEdge]) {
    for (const name of Object.getOwnPropertyNames(job.prototype)) {
        if (name !== "constructor") Object.defineProperty(OnairPlayer.prototype, name, Object.getOwnPropertyDescriptor(job.prototype, name));
    }
}

// `<video data-onair src="…m3u8">` on any page: played by the browser's HLS where it has one,
// with MSE elsewhere (or everywhere with `data-onair="mse"`), started when the channel is
// live and started again after an error. Without this script the browser plays the src itself.
export function enhance() {
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
