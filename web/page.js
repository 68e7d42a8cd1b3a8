// What the watch and embed pages share: the channel named in the address, and a player whose
// state shows as a message over the video, with a button to turn the sound on.
"use strict";

const OnairPage = {
    /** `demo` for `/watch/demo` or `/embed/demo`. */
    channel() {
        return decodeURIComponent(location.pathname.split("/")[2] || "");
    },

    /** A query option: `?engine=mse`, `?muted=1`. */
    option(name, fallback) {
        const value = new URLSearchParams(location.search).get(name);
        return value === null ? fallback : value;
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
        const update = () => {
            if (player.state === "waiting") {
                say("Waiting for the broadcast", "The video starts as soon as the channel goes live.");
            } else if (player.state === "ended" && (video.ended || video.paused || video.readyState < 3)) {
                say("The broadcast has ended", "Thanks for watching.");
            } else if (player.state === "live" && !autoplay && video.paused && video.currentTime === 0) {
                say("Live now", "Press play to watch.");
            } else if (player.state === "live" && video.readyState < 2) {
                say("Starting…", "Joining the live stream.");
            } else {
                message.hidden = true;
            }
            unmute.hidden = !(video.muted && !video.paused && player.state !== "waiting");
        };
        player.onstate = (state) => {
            update();
            stage.dispatchEvent(new CustomEvent("onair:state", { detail: state }));
        };
        for (const event of ["playing", "pause", "ended", "waiting", "loadeddata", "volumechange", "emptied"]) {
            video.addEventListener(event, update);
        }
        unmute.addEventListener("click", () => {
            video.muted = false;
            if (video.paused) video.play().catch(() => {});
            video.focus();
        });
        say("Waiting for the broadcast", "The video starts as soon as the channel goes live.");
        OnairPage.whenListed(() => player.start());
        return player;
    },

    /** Calls `then` once the server lists the channel: no playlist request meets a 404 before. */
    async whenListed(then) {
        for (;;) {
            try {
                const response = await fetch("/api/channels", { cache: "no-store" });
                const channels = await response.json();
                if (channels.some((channel) => channel.name === OnairPage.channel())) return then();
            } catch (error) {
                // Not answering yet: ask again.
            }
            await new Promise((resolve) => setTimeout(resolve, 2000));
        }
    },
};
