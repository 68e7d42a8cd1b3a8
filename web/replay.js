// The replay page, /watch/<channel>/<recording>: one recording from /api/recordings, played from
// its start. The MP4 when there is one (every browser plays and seeks it, and it downloads),
// else the HLS recording with onair's player (native HLS, or its MSE engine; `?engine=` as on
// the watch page).
import { OnairPlayer } from "./player/onair-player.js";

(function () {
    const $ = (id) => document.getElementById(id);
    const parts = location.pathname.split("/");
    let channel = "";
    let name = "";
    try {
        channel = decodeURIComponent(parts[2] || "");
        name = decodeURIComponent(parts[3] || "");
    } catch (error) {
        // a malformed escape: no recording has such a name
    }
    document.title = channel + " · " + name + " · onair";
    $("channel").textContent = channel;
    const video = $("player");
    const clock = (seconds) =>
        [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, Math.floor(seconds % 60)]
            .map((n) => String(n).padStart(2, "0"))
            .join(":");

    function missing(detail) {
        $("message").hidden = false;
        if (detail) $("message-detail").textContent = detail;
    }

    // The recording's markers: a chapter each, a click plays from it (seconds from the start, as
    // the MP4 and the playlist play alike).
    function showChapters(markers) {
        if (!markers.length) return;
        $("chapter-list").replaceChildren(
            ...markers.map((marker) => {
                const item = document.createElement("li");
                const button = document.createElement("button");
                button.type = "button";
                button.dataset.seconds = String(marker.seconds);
                button.textContent = clock(marker.seconds) + "  " + marker.title;
                button.addEventListener("click", () => {
                    video.currentTime = marker.seconds;
                    video.play().catch(() => {});
                });
                item.append(button);
                return item;
            }),
        );
        $("chapters").hidden = false;
    }

    async function load() {
        let entries;
        try {
            const response = await fetch("/api/recordings", { cache: "no-store" });
            entries = (await response.json()).recordings;
        } catch (error) {
            return missing("The server is not answering; reload the page to try again.");
        }
        const entry = entries.find((recording) => recording.channel === channel && recording.name === name);
        if (!entry) return missing();
        $("started").textContent = new Date(entry.startedAt).toLocaleString();
        $("length").textContent = clock(entry.seconds);
        $("state").textContent = entry.ended ? "recorded" : "recording";
        $("state").dataset.state = entry.ended ? "ended" : "live";
        $("playlist-link").href = entry.playlist;
        if (entry.mp4) {
            video.src = entry.mp4;
            $("engine").textContent = "MP4";
            $("download").href = entry.mp4;
            $("download").download = channel + "-" + name + ".mp4";
            $("download").textContent = "Download the MP4 (" + (entry.mp4Bytes / 1e6).toFixed(1) + " MB)";
            $("download").hidden = false;
        } else {
            const engine = new URLSearchParams(location.search).get("engine") || "auto";
            const player = new OnairPlayer(video, { playlist: entry.playlist, fromStart: true, engine });
            window.onair = player;
            player.start();
            $("engine").textContent = player.engine === "native" ? "native HLS" : "onair MSE";
            $("no-mp4").hidden = false;
        }
        showChapters(entry.markers || []);
        window.onairRecording = entry;
    }
    load();
})();
