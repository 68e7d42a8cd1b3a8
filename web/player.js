// onair's player for any web page, as one classic script:
//
//   <video data-onair src="https://HOST/live/demo/index.m3u8" controls muted playsinline></video>
//   <script src="https://HOST/web/player.js" async></script>
//
// It loads the player's modules (web/player/, one job each: onair-player.js is the player) from
// where it was itself loaded, sets up every `<video data-onair>` and offers `window.OnairPlayer`
// to the page's own scripts once loaded. Pages of this server import web/player/onair-player.js.
"use strict";

(function () {
    const script = document.currentScript;
    const player = new URL("player/onair-player.js", script ? script.src : location.href).href;
    import(player).then(
        (modules) => {
            window.OnairPlayer = modules.OnairPlayer;
            modules.enhance();
        },
        (error) => console.error("onair: the player could not load from " + player + ": " + error)
    );
})();
