// The embedded player: `/embed/<channel>?autoplay=1&muted=0&controls=1` in an iframe.
import { OnairPage } from "./page.js";

(function () {
    const stage = document.querySelector(".stage");
    const video = stage.querySelector("video");
    document.title = OnairPage.channel() + " · onair";
    video.controls = OnairPage.flag("controls", true);
    const player = OnairPage.mount(stage, {
        autoplay: OnairPage.flag("autoplay", true),
        muted: OnairPage.flag("muted", false),
    });
    window.onair = player;
    // LIVE over the video while it plays; BACK TO LIVE, a button to the live edge, once the
    // viewer has gone back in a channel's rewind window (the video's own seek bar).
    const tag = document.getElementById("state");
    const showTag = () => {
        const behind = player.state === "live" && player.rewound !== null;
        tag.hidden = player.state !== "live";
        tag.dataset.state = behind ? "behind" : player.state || "waiting";
        tag.textContent = behind ? "back to live" : "live";
        tag.disabled = !behind;
        tag.title = behind ? "Back to the live edge" : "";
    };
    stage.addEventListener("onair:state", showTag);
    setInterval(showTag, 500);
    tag.addEventListener("click", () => player.goLive());
})();
