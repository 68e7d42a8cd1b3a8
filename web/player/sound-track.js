// A ladder's sound in the MSE engine, from a playlist of its own.

import { get, sleep } from "./network.js";
import { blockingURL, parseMediaPlaylist } from "./playlists.js";
import { idle, sourceBufferDone } from "./source-buffers.js";
import { isAfter, mediaUnits } from "./units.js";

/**
 * A ladder's sound in the MSE engine, when it has a playlist of its own (`EXT-X-MEDIA`): a
 * SourceBuffer of its own, fed from the segment the video starts in, unit after unit, its
 * playlist reloaded as the video's is (held by the server until the next part with Low-Latency
 * HLS). The video changing variants leaves it be: every variant plays with this one sound.
 */
export class SoundTrack {
    constructor(player, uri, codecs) {
        this.player = player;
        this.uri = uri;
        this.buffer = player.mediaSource.addSourceBuffer('audio/mp4; codecs="' + codecs + '"');
        this.playlist = null;
        this.last = null;
        this.appendedInit = null;
        this.done = false;
    }

    /** Follows the sound until the channel ends or the player starts over (`generation`). */
    async run(generation) {
        const player = this.player;
        while (player.running && generation === player.generation && !this.done) {
            // Nothing to fetch before the video has chosen where it starts.
            if (player.startSequence === null) {
                await sleep(0.1);
                continue;
            }
            let wait = 0.1;
            // Its origin failed and the player is on a twin that is not passed over: asked there at once.
            let retryAtOnce = false;
            try {
                const blocking = this.playlist && player.engine === "mse" && this.playlist.canBlockReload && !this.playlist.ended;
                const address = player.withSession(blocking ? blockingURL(this.uri, this.playlist) : this.uri);
                const pathway = player.pathway;
                let response;
                try {
                    response = await get(address, 4 * player.targetDuration());
                } catch (error) {
                    retryAtOnce = player.failOver(pathway);
                    throw error;
                }
                if (response.status >= 500) retryAtOnce = player.failOver(pathway);
                if (!response.ok) throw new Error("sound playlist: HTTP " + response.status);
                const playlist = parseMediaPlaylist(await response.text(), response.url);
                if (generation !== player.generation) return;
                this.playlist = playlist;
                for (let unit = this.nextUnit(); unit; unit = this.nextUnit()) {
                    let bytes = null;
                    try {
                        bytes = await player.fetchBytes(unit.uri);
                    } catch (error) {
                        // Gone (out of the window): on without it, as the video does.
                        if (!/HTTP 404/.test(String(error.message))) throw error;
                        player.skipped += 1;
                    }
                    if (generation !== player.generation) return;
                    if (bytes) await this.append(unit, bytes, generation);
                    if (generation !== player.generation) return;
                    this.last = unit;
                }
                if (playlist.ended && this.last !== null && !mediaUnits(playlist).some((u) => isAfter(u, this.last))) {
                    this.done = true;
                    player.endIfFinished();
                }
                wait = blocking ? 0 : Math.min(1, playlist.targetDuration / 2);
            } catch (error) {
                player.problem = String(error.message || error);
                wait = retryAtOnce ? 0 : 1;
            }
            if (wait > 0) await sleep(wait);
        }
    }

    /**
     * What to append next: once the video has started, the unit that begins the segment it
     * started in, then what follows the last appended.
     */
    nextUnit() {
        const start = this.player.startSequence;
        if (start === null || !this.playlist) return null;
        const units = mediaUnits(this.playlist);
        if (this.last === null) {
            return units.find((unit) => unit.sequence === start && (unit.part === null || unit.part === 0)) ||
                units.find((unit) => unit.sequence > start) || null;
        }
        return units.find((unit) => isAfter(unit, this.last)) || null;
    }

    async append(unit, bytes, generation) {
        const init = unit.init || this.playlist.init;
        if (init && !this.player.sameFile(init, this.appendedInit)) {
            const header = await this.player.fetchBytes(init);
            if (generation !== this.player.generation) return;
            await idle(this.buffer);
            await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(header));
            this.appendedInit = init;
        }
        // After a discontinuity (a restarted broadcast) the sound goes where the video went.
        await idle(this.buffer);
        if (unit.discontinuity && this.last !== null) this.buffer.timestampOffset = this.player.buffer.timestampOffset;
        try {
            await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
        } catch (error) {
            if (error.name !== "QuotaExceededError") throw error;
            await this.player.trimBuffer(this.buffer, 5);
            await sourceBufferDone(this.buffer, () => this.buffer.appendBuffer(bytes));
        }
    }
}
