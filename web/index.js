// The channel list: refreshed from /api/channels every two seconds.
"use strict";

(function () {
    const table = document.getElementById("channels");
    const body = table.querySelector("tbody");
    const empty = document.getElementById("empty");

    const clock = (seconds) =>
        [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
            .map((n) => String(n).padStart(2, "0"))
            .join(":");
    const cell = (row, text, className) => {
        const td = row.insertCell();
        if (text instanceof Node) td.append(text);
        else td.textContent = text;
        if (className) td.className = className;
        return td;
    };
    const link = (href, text) => {
        const a = document.createElement("a");
        a.href = href;
        a.textContent = text;
        return a;
    };

    /**
     * The channel's newest picture (the server keeps one a few seconds old), asked for again every
     * ten seconds; the element is kept across refreshes and changes picture once the next has loaded.
     */
    const pictures = new Map();
    function thumbnail(channel) {
        let picture = pictures.get(channel.name);
        if (!picture) {
            picture = document.createElement("img");
            picture.className = "thumbnail";
            picture.alt = "";
            pictures.set(channel.name, picture);
        }
        picture.width = 96;
        picture.height = Math.round((96 * channel.height) / channel.width) || 54;
        const address = channel.thumbnail + (channel.thumbnail.includes("?") ? "&" : "?") + "t=" + Math.floor(Date.now() / 10000);
        if (picture.dataset.wanted !== address) {
            picture.dataset.wanted = address;
            const next = new Image();
            next.onload = () => {
                if (picture.dataset.wanted === address) picture.src = address;
            };
            next.src = address;
        }
        return picture;
    }

    async function refresh() {
        let channels;
        try {
            const response = await fetch("/api/channels", { cache: "no-store" });
            channels = await response.json();
        } catch (error) {
            empty.textContent = "The server is not answering; trying again…";
            empty.hidden = false;
            return;
        }
        body.replaceChildren();
        for (const channel of channels) {
            const row = body.insertRow();
            row.dataset.channel = channel.name;
            const name = link(channel.watch, channel.name);
            if (channel.thumbnail) name.prepend(thumbnail(channel));
            cell(row, name);
            const badge = document.createElement("span");
            badge.className = "badge";
            badge.dataset.state = channel.state;
            badge.textContent = channel.state;
            cell(row, badge);
            cell(row, clock(channel.uptimeSeconds), "number");
            cell(row, channel.width + "×" + channel.height + " · " + channel.fps + " fps", "wide number");
            cell(row, String(channel.viewers), "number");
            cell(row, channel.playlist ? link(channel.playlist, "index.m3u8") : "private", "wide");
        }
        table.hidden = channels.length === 0;
        empty.hidden = channels.length !== 0;
        empty.textContent = "No channel is on air. Start one with: onair publish --channel NAME";
    }
    refresh();
    setInterval(refresh, 2000);

    /** What was recorded (`--record`), newest first: refreshed every ten seconds. */
    const recordings = document.getElementById("recordings");
    async function refreshRecordings() {
        let entries;
        try {
            const response = await fetch("/api/recordings", { cache: "no-store" });
            entries = (await response.json()).recordings;
        } catch (error) {
            return;
        }
        const rows = recordings.querySelector("tbody");
        rows.replaceChildren();
        for (const entry of entries) {
            const row = rows.insertRow();
            row.dataset.recording = entry.channel + "/" + entry.name;
            const watch = "/watch/" + encodeURIComponent(entry.channel) + "/" + encodeURIComponent(entry.name);
            cell(row, link(watch, entry.channel + (entry.ended ? "" : " (recording)")));
            cell(row, new Date(entry.startedAt).toLocaleString());
            cell(row, clock(Math.round(entry.seconds)), "number");
            cell(row, (entry.bytes / 1e6).toFixed(1) + " MB", "wide number");
            if (entry.mp4) {
                const download = link(entry.mp4, "download");
                download.download = entry.channel + "-" + entry.name + ".mp4";
                cell(row, download);
            } else cell(row, "–");
        }
        recordings.hidden = entries.length === 0;
    }
    refreshRecordings();
    setInterval(refreshRecordings, 10000);
})();
