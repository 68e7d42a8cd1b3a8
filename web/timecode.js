// Reads the capture time that onair's test pattern writes into each frame as a row of black and
// white blocks (see Sources/Capture/TimeCode.swift), from the frame a <video> shows: the
// glass-to-glass latency is this computer's clock minus it. Used by scripts/latency.sh.
"use strict";

const OnairTimeCode = {
    BLOCKS: 44,

    /** Where the row is in a picture of this size; the same formulas as TimeCode.placement. */
    placement(width, height) {
        const block = Math.max(4, Math.floor(width / 80)) & ~1;
        const clockScale = Math.max(2, Math.floor(width / 96)) & ~1;
        const clockY = (Math.floor(height / 2) - clockScale * 2) & ~1;
        return { x: Math.floor((width - OnairTimeCode.BLOCKS * block) / 2) & ~1, y: (clockY - 2 * block) & ~1, block };
    },

    /**
     * The wall time (ms since 1970) of the frame on screen (a <video>'s, or a picture drawn on a
     * <canvas>), or null when there is no readable code.
     */
    read(video, canvas = document.createElement("canvas")) {
        const width = video.videoWidth || video.width;
        const height = video.videoHeight || video.height;
        if (!width || !height) return null;
        canvas.width = width;
        canvas.height = height;
        const context = canvas.getContext("2d", { willReadFrequently: true });
        context.drawImage(video, 0, 0, width, height);
        const { x, y, block } = OnairTimeCode.placement(width, height);
        const row = context.getImageData(0, y + block / 2, width, 1).data;
        const bits = [];
        for (let i = 0; i < OnairTimeCode.BLOCKS; i++) {
            const at = 4 * (x + i * block + block / 2);
            bits.push(0.299 * row[at] + 0.587 * row[at + 1] + 0.114 * row[at + 2] > 128 ? 1 : 0);
        }
        const guards = [bits[0], bits[1], bits[42], bits[43]].join("");
        if (guards !== "1001") return null;
        let value = 0;
        for (const bit of bits.slice(2, 42)) value = value * 2 + bit;
        // The low 40 bits of the time: the latest time congruent with it, at most half a cycle ahead.
        const cycle = 2 ** 40;
        const now = Date.now();
        let time = now - ((((now - value) % cycle) + cycle) % cycle);
        if (now - time > cycle / 2) time += cycle;
        return time;
    },
};
