// The embedded player: `/embed/<channel>?autoplay=1&muted=0&controls=1` in an iframe.
"use strict";

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
    const tag = document.getElementById("state");
    stage.addEventListener("onair:state", (event) => {
        tag.dataset.state = event.detail;
        tag.hidden = event.detail !== "live";
    });
})();
