// What the watch and embed pages share: the channel named in the address, and a player whose
// state shows as a message over the video, with a button to turn the sound on.
import { OnairPlayer } from "./player/onair-player.js";

export const OnairPage = {
    /** `demo` for `/watch/demo` or `/embed/demo`. */
    channel() {
        try {
            return decodeURIComponent(location.pathname.split("/")[2] || "");
        } catch (error) {
            return ""; // a malformed escape (the server refuses such addresses; this is for a copy elsewhere)
        }
    },

    /** A query option: `?engine=mse`, `?muted=1`. */
    option(name, fallback) {
        const value = new URLSearchParams(location.search).get(name);
        return value === null ? fallback : value;
    },

    /** The channel list, with this page's `?token=` (a private channel's links come only with it). */
    api() {
        const token = OnairPage.option("token", "");
        return "/api/channels" + (token ? "?token=" + encodeURIComponent(token) : "");
    },

    flag(name, fallback) {
        const value = OnairPage.option(name, null);
        return value === null ? fallback : !["0", "false", "no", "off"].includes(value.toLowerCase());
    },

    /** Starts a player in `stage` (a .stage element holding a video, a .message and an .unmute button). */
    mount(stage, { autoplay = true, muted = false } = {}) {
        const video = stage.querySelector("video");
        const message = stage.querySelector(".message");
        const unmute = stage.querySelector(".unmute");
        video.muted = muted;
        video.autoplay = autoplay;
        const player = new OnairPlayer(video, {
            playlist: "/live/" + encodeURIComponent(OnairPage.channel()) + "/index.m3u8",
            engine: OnairPage.option("engine", "auto"),
        });

        const say = (title, detail) => {
            message.querySelector("strong").textContent = title;
            message.querySelector("span").textContent = detail;
            message.hidden = false;
        };
        let played = false; // once it has played, a wait is a reconnection, not a start
        const update = () => {
            const stalled = !video.paused && video.readyState < 3;
            if (played && (player.state === "waiting" || (player.state === "live" && player.failingSince !== null)) && stalled) {
                // It was playing: the stream is out of reach (the link, or the server), not yet to start.
                say("Reconnecting…", "The stream went out of reach; the picture comes back when it can.");
            } else if (player.state === "waiting" && played && !video.paused) {
                message.hidden = true; // still playing what it holds
            } else if (player.state === "waiting") {
                say("Waiting for the broadcast", "The video starts as soon as the channel goes live.");
            } else if (player.state === "ended" && (video.ended || video.paused || video.readyState < 3)) {
                say("The broadcast has ended", "Thanks for watching.");
            } else if (player.state === "live" && !autoplay && video.paused && video.currentTime === 0) {
                say("Live now", "Press play to watch.");
            } else if (player.state === "live" && video.readyState < 2) {
                // Once it has played, no picture means a stall or a jump back to the live edge.
                if (played) say("Catching up…", "The picture comes back as soon as enough of the stream arrives.");
                else say("Starting…", "Joining the live stream.");
            } else {
                message.hidden = true;
            }
            unmute.hidden = !(video.muted && !video.paused && player.state !== "waiting");
        };
        player.onstate = (state) => {
            update();
            stage.dispatchEvent(new CustomEvent("onair:state", { detail: state }));
        };
        video.addEventListener("playing", () => (played = true));
        for (const event of ["playing", "pause", "ended", "waiting", "loadeddata", "volumechange", "emptied"]) {
            video.addEventListener(event, update);
        }
        unmute.addEventListener("click", () => {
            video.muted = false;
            if (video.paused) video.play().catch(() => {});
            video.focus();
        });
        say("Waiting for the broadcast", "The video starts as soon as the channel goes live.");
        OnairPage.qualityMenu(stage, player);
        OnairPage.whenListed((info) => {
            // The newest picture stands in until the video plays (a channel this server captures).
            if (info.thumbnail && !video.poster) video.poster = info.thumbnail;
            // A private channel's playlist is signed: the server gives its URL to a page with a working token.
            player.setLivePlaylist(info.playlist);
            // A channel published with --dvr: the video's own seek bar (MSE) covers its rewind window.
            if (info.dvrPlaylist) player.setRewindWindow(info.dvrPlaylist);
            player.start();
        }, () =>
            say("This channel is private", "Open it with the link its host gave you: this one has no token, or it has expired.")
        );
        return player;
    },

    /**
     * A menu over the video (Auto, then each quality, highest first) once the player plays a channel
     * of several qualities itself; the browser's own HLS chooses by itself and shows none.
     */
    qualityMenu(stage, player) {
        const menu = document.createElement("select");
        menu.className = "quality";
        menu.hidden = true;
        menu.setAttribute("aria-label", "Quality");
        stage.appendChild(menu);
        menu.addEventListener("change", () => player.setQuality(menu.value === "auto" ? null : Number(menu.value)));
        setInterval(() => {
            const variants = player.variants || [];
            const shown = player.engine === "mse" && variants.length > 1;
            menu.hidden = !shown;
            if (!shown) return;
            const labels = ["Auto"].concat(variants.map((variant) => variant.name).reverse());
            if (Array.from(menu.options, (option) => option.textContent).join() !== labels.join()) {
                menu.replaceChildren(
                    new Option("Auto", "auto"),
                    ...variants.map((variant, index) => new Option(variant.name, String(index))).reverse()
                );
            }
            const selected = player.pinned === null ? "auto" : String(player.pinned);
            if (document.activeElement !== menu && menu.value !== selected) menu.value = selected;
        }, 500);
    },

    /**
     * Calls `then` with the channel's entry once the server lists it with a playlist: no playlist
     * request meets a 404 before. A private channel listed without one (no working token) calls
     * `refused`, and is asked for again.
     */
    async whenListed(then, refused) {
        for (;;) {
            try {
                const response = await fetch(OnairPage.api(), { cache: "no-store" });
                const channels = await response.json();
                const info = channels.find((channel) => channel.name === OnairPage.channel());
                if (info && info.playlist) return then(info);
                if (info && info.private) refused();
            } catch (error) {
                // Not answering yet: ask again.
            }
            await new Promise((resolve) => setTimeout(resolve, 2000));
        }
    },
};
