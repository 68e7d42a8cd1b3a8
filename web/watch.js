// The watch page: the player, the channel's state, latency and viewers, and the embed code.
import { OnairPage } from "./page.js";
import { KeyframePreview } from "./player/keyframes.js";

(function () {
    const channel = OnairPage.channel();
    const $ = (id) => document.getElementById(id);
    document.title = channel + " · onair";
    $("channel").textContent = channel;

    const stage = document.querySelector(".stage");
    const player = OnairPage.mount(stage, { autoplay: true, muted: OnairPage.flag("muted", false) });
    window.onair = player;
    const showEngine = () => ($("engine").textContent = player.engine === "native" ? "native HLS" : "onair MSE");
    showEngine();

    const labels = { waiting: "waiting", live: "live", paused: "paused", ended: "ended" };
    // The player knows live, waiting and ended from the playlist; a pause only the API tells.
    let hostPaused = false;
    const showState = () => {
        const state = player.state === "live" && hostPaused ? "paused" : player.state;
        $("state").dataset.state = state;
        $("state").textContent = labels[state];
    };
    stage.addEventListener("onair:state", () => {
        showEngine();
        showState();
    });

    // CC: shown once the stream has captions (a subtitle track, the player's or the browser's own
    // HLS's); it shows or hides them.
    const captionsButton = $("captions");
    const subtitleTracks = () =>
        Array.from(player.video.textTracks).filter((t) => t.kind === "subtitles" || t.kind === "captions");
    let captionsOn = true;
    captionsButton.addEventListener("click", () => {
        captionsOn = !captionsOn;
        captionsButton.setAttribute("aria-pressed", String(captionsOn));
        for (const track of subtitleTracks()) track.mode = captionsOn ? "showing" : "hidden";
    });
    setInterval(() => {
        const tracks = subtitleTracks();
        captionsButton.hidden = tracks.length === 0;
        for (const track of tracks) {
            const wanted = captionsOn ? "showing" : "hidden";
            if (track.mode !== wanted) track.mode = wanted;
        }
    }, 500);

    setInterval(() => {
        const latency = player.latency();
        $("latency").textContent = latency === null || player.state !== "live" ? "–" : latency.toFixed(1) + " s";
        $("quality").textContent = player.quality() || "–";
    }, 500);

    const clock = (seconds) =>
        [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
            .map((n) => String(n).padStart(2, "0"))
            .join(":");

    // The rewind bar (a channel published with --dvr): the window from its oldest moment to the
    // live edge, the moment on screen marked; while dragging, the picture there (the keyframe
    // before it, from the I-frame playlist) above the thumb; let go to play from there, LIVE to
    // come back.
    const bar = $("rewind-bar");
    const previewCanvas = $("rewind-preview");
    let preview = null;
    let dragging = false;
    const showPreview = async (refresh) => {
        const range = player.rewindWindow();
        if (!preview || !range) return;
        // The window slides: read its keyframes again as a drag starts.
        if (refresh) await preview.refresh().catch(() => false);
        const wall = range.start + Number(bar.value) * 1000;
        const entry = await preview.draw(wall, previewCanvas).catch(() => null);
        if (!dragging) return;
        previewCanvas.hidden = !entry;
        const share = Number(bar.value) / Math.max(1, Number(bar.max));
        previewCanvas.style.left = "calc(" + (share * 100).toFixed(2) + "% - " + (share * 12).toFixed(2) + "rem)";
    };
    const behindText = (seconds) => (seconds < 1 ? "" : "−" + clock(Math.round(seconds)));
    setInterval(() => {
        const range = player.rewindWindow();
        if (!range) return;
        const span = Math.max(1, Math.round((range.end - range.start) / 1000));
        bar.max = String(span);
        showMarkers(range);
        const behind = player.behindLive();
        if (!dragging && behind !== null) bar.value = String(Math.max(0, span - Math.round(behind)));
        if (!dragging) $("rewind-behind").textContent = player.rewound && behind !== null ? behindText(behind) : "";
        $("rewind-live").dataset.live = String(!player.rewound);
    }, 500);
    // Markers (chapters): a tick each on the bar, where it falls in the window; a click plays from it.
    const ticks = $("rewind-ticks");
    const showMarkers = (range) => {
        const span = Math.max(1, range.end - range.start);
        const shown = player.rewindMarkers().filter((marker) => marker.start >= range.start && marker.start <= range.end);
        const key = shown.map((marker) => marker.id).join(" ");
        if (ticks.dataset.key !== key) {
            ticks.dataset.key = key;
            ticks.replaceChildren(
                ...shown.map((marker) => {
                    const tick = document.createElement("button");
                    tick.type = "button";
                    tick.className = "tick";
                    tick.dataset.id = marker.id;
                    tick.dataset.title = marker.title;
                    tick.setAttribute("aria-label", "Play from “" + marker.title + "”");
                    tick.addEventListener("click", () => player.rewindTo(marker.start));
                    return tick;
                }),
            );
        }
        shown.forEach((marker, index) => {
            ticks.children[index].style.left = (((marker.start - range.start) / span) * 100).toFixed(3) + "%";
        });
    };
    bar.addEventListener("input", () => {
        const started = !dragging;
        dragging = true;
        showPreview(started);
        $("rewind-behind").textContent = behindText(Number(bar.max) - Number(bar.value));
    });
    bar.addEventListener("change", () => {
        dragging = false;
        previewCanvas.hidden = true;
        const range = player.rewindWindow();
        if (range) player.rewindTo(range.start + Number(bar.value) * 1000);
    });
    $("rewind-live").addEventListener("click", () => player.goLive());
    async function refreshFacts() {
        try {
            const response = await fetch(OnairPage.api(), { cache: "no-store" });
            const info = (await response.json()).find((c) => c.name === channel);
            if (!info) return;
            if (info.playlist) showCodes(info);
            if (info.dvrPlaylist) {
                player.setRewindWindow(info.dvrPlaylist); // once: later calls keep the first
                if (!preview && KeyframePreview.supported) preview = new KeyframePreview(info.dvrPlaylist);
                $("rewind").hidden = false;
            }
            $("viewers").textContent = String(info.viewers);
            $("resolution").textContent = info.width + "×" + info.height + " · " + info.fps + " fps";
            $("uptime").textContent = clock(info.uptimeSeconds);
            hostPaused = info.state === "paused";
            if (player.state) showState();
        } catch (error) {
            // The server is away: the player says so; the facts keep their last values.
        }
    }
    refreshFacts();
    const facts = setInterval(() => {
        // An ended channel's server goes away soon: stop asking it.
        if (player.state === "ended") clearInterval(facts);
        refreshFacts();
    }, 2000);

    // The playlist link and the embed codes, with the channel's signed URLs when it is private.
    const origin = location.origin;
    const path = encodeURIComponent(channel);
    const attribute = (text) =>
        text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    function showCodes(info) {
        const playlist = origin + (info ? info.playlist : "/live/" + path + "/index.m3u8");
        const embed = origin + (info ? info.embed : "/embed/" + path);
        $("playlist-link").href = playlist;
        $("embed-iframe").value =
            '<iframe src="' + embed + '" width="640" height="360" frameborder="0" ' +
            'allow="autoplay; fullscreen" allowfullscreen title="' + attribute(channel) + ' (live)"></iframe>';
        $("embed-video").value =
            '<video data-onair src="' + playlist + '" crossorigin="anonymous" controls autoplay muted playsinline ' +
            'width="640"></video>\n' +
            '<script src="' + origin + '/web/player.js" async></script>';
    }
    showCodes(null);

    for (const button of document.querySelectorAll("button.copy")) {
        button.addEventListener("click", async () => {
            const text = $(button.dataset.copy);
            try {
                await navigator.clipboard.writeText(text.value);
            } catch (error) {
                // No clipboard API (a page served over plain HTTP to another machine): copy the selection.
                text.focus();
                text.select();
                document.execCommand("copy");
            }
            button.textContent = "Copied";
            setTimeout(() => (button.textContent = "Copy"), 1500);
        });
    }
})();
