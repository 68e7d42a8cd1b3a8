// Twin origins: the pathways a multivariant playlist offers, an address moved from one to another,
// and the player's moves between them (content steering, failing over when one dies).

import { get } from "./network.js";
import { parseSound, parseSteering, parseSubtitles, parseVariants, playableVariants } from "./playlists.js";

/** Whether this browser's Media Source Extensions decode `codecs`; without them, the browser's own HLS picks. */
function canPlay(codecs) {
    return !("MediaSource" in globalThis) || MediaSource.isTypeSupported('video/mp4; codecs="' + codecs + '"');
}

/**
 * Twin origins offered to players (content steering, or redundant variants): the pathways in
 * the order listed, and where each one's addresses start. Corresponding variants differ only
 * there (`http://a.example:8080` and `http://b.example:8080` before `/live/demo/media.m3u8`),
 * so any address of one pathway is the same file's on another with its start exchanged.
 * Null with one origin.
 */
export function parsePathways(variants) {
    const ids = [];
    for (const variant of variants) if (variant.pathway && !ids.includes(variant.pathway)) ids.push(variant.pathway);
    if (ids.length < 2) return null;
    const firsts = ids.map((id) => variants.find((variant) => variant.pathway === id).uri);
    let common = 0;
    const shortest = Math.min(...firsts.map((uri) => uri.length));
    while (common < shortest && firsts.every((uri) => uri[uri.length - 1 - common] === firsts[0][firsts[0].length - 1 - common])) common++;
    // The shared end from a path's start, so one address's start is never part of another's.
    const tail = firsts[0].slice(firsts[0].length - common);
    const slash = tail.indexOf("/", tail.indexOf("://") >= 0 ? tail.indexOf("://") + 3 : 0);
    if (slash < 0) return null;
    const kept = tail.length - slash;
    return { ids, prefixes: Object.fromEntries(ids.map((id, i) => [id, firsts[i].slice(0, firsts[i].length - kept)])) };
}

/** `uri` as served by pathway `to`, when it is any pathway's address; otherwise unchanged. */
export function onPathway(uri, pathways, to) {
    if (!pathways || !to) return uri;
    const target = pathways.prefixes[to];
    if (uri.startsWith(target + "/")) return uri;
    for (const id of pathways.ids) {
        const prefix = pathways.prefixes[id];
        if (uri.startsWith(prefix + "/")) return target + uri.slice(prefix.length);
    }
    return uri;
}

/** The player's methods for this job, taken on by ``OnairPlayer``. */
export class Pathways {
    /**
     * The multivariant playlist's variants and sound, on the pathway played (kept across
     * readings), or the steering manifest's first, or the playlist's.
     */
    readPathways(text, base) {
        const all = parseVariants(text, base);
        this.pathways = parsePathways(all);
        if (this.pathways && !this.pathways.ids.includes(this.pathway)) {
            const steering = parseSteering(text, base);
            this.pathway = (steering && this.pathways.ids.includes(steering.pathway) && steering.pathway) || this.pathways.ids[0];
            if (steering && !this.steering) this.steer(steering.uri);
        }
        if (!this.pathways) this.pathway = null;
        this.variantText = { text, base };
        this.variants = playableVariants(
            this.pathway ? all.filter((variant) => variant.pathway === this.pathway) : all, canPlay);
        this.soundURI = parseSound(text, base, this.pathway);
        this.subtitles = parseSubtitles(text, base, this.pathway);
    }

    /**
     * True when two addresses name the same file, on one pathway or two: an init segment is
     * appended again only when it is another (appending one makes the browser drop media up
     * to the next keyframe).
     */
    sameFile(a, b) {
        return a === b || (a !== null && b !== null && this.onPathway(a) === this.onPathway(b));
    }

    /** Any address of the channel's files, on the pathway played. */
    onPathway(uri) {
        return onPathway(uri, this.pathways, this.pathway);
    }

    /**
     * Plays on from pathway `id`: the same variant there, the same playlist state (its twin
     * numbers segments and parts alike), so the next reload and the next unit come from it.
     */
    usePathway(id) {
        if (!this.pathways || id === this.pathway || !this.pathways.ids.includes(id)) return;
        this.pathway = id;
        this.pathwayMoves += 1;
        const { text, base } = this.variantText;
        this.variants = playableVariants(parseVariants(text, base).filter((variant) => variant.pathway === id), canPlay);
        this.soundURI = parseSound(text, base, id);
        this.subtitles = parseSubtitles(text, base, id);
        if (this.variant) this.variant = this.variants[Math.min(this.level, this.variants.length - 1)];
        if (this.sound && this.soundURI) this.sound.uri = this.soundURI;
        if (this.captions && this.subtitles) this.captions.uri = this.subtitles.uri;
        // The browser's HLS starts again on the twin, at the next reload.
        if (this.engine === "native" && this.attached && this.playlistURL === this.liveURL) this.detach();
    }

    /**
     * Pathway `from` failed (a request refused, unanswered or 5xx): it is passed over for 30 s,
     * and the player moves to the first pathway the steering manifest ranks that is not, or
     * when every one is, to the one passed over longest ago. True when the pathway played now
     * is one to ask at once: moved to just now, or by another request, and not passed over.
     */
    failOver(from) {
        if (!this.pathways) return false;
        const now = Date.now();
        if (from === this.pathway) {
            this.penalties[from] = now + 30000;
            const others = this.pathways.ids.filter((id) => id !== from);
            const next = others.find((id) => !(this.penalties[id] > now)) ||
                others.sort((a, b) => (this.penalties[a] || 0) - (this.penalties[b] || 0))[0];
            this.usePathway(this.rankedPathways().find((id) => id !== from && !(this.penalties[id] > now)) || next);
        }
        return !(this.penalties[this.pathway] > now);
    }

    /** The pathways best first: by the steering manifest's priority, those passed over last. */
    rankedPathways() {
        const ids = this.pathways ? this.pathways.ids : [];
        const priority = (this.priority || []).filter((id) => ids.includes(id)).concat(ids.filter((id) => !(this.priority || []).includes(id)));
        const now = Date.now();
        return priority.filter((id) => !(this.penalties[id] > now)).concat(priority.filter((id) => this.penalties[id] > now));
    }

    /**
     * Reads the steering manifest (on the pathway played) and again every TTL seconds; moves to
     * the pathway it ranks first when that one is not passed over (the MSE engine at any time,
     * the browser's HLS before it starts).
     */
    async steer(uri) {
        this.steering = uri;
        let wait = 30;
        try {
            const address = new URL(this.onPathway(uri));
            if (this.pathway) address.searchParams.set("_HLS_pathway", this.pathway);
            const response = await get(address.href, 10);
            if (!response.ok) throw new Error("steering manifest: HTTP " + response.status);
            const manifest = await response.json();
            if (Array.isArray(manifest["PATHWAY-PRIORITY"])) this.priority = manifest["PATHWAY-PRIORITY"].map(String);
            if (manifest["RELOAD-URI"]) this.steering = new URL(manifest["RELOAD-URI"], response.url).href;
            wait = Math.max(1, Number(manifest.TTL) || 300);
            // The browser's HLS would start again to move: it stays until its pathway fails.
            const best = this.rankedPathways()[0];
            const settled = this.engine === "native" && this.attached;
            if (best && !settled && !(this.penalties[best] > Date.now())) this.usePathway(best);
        } catch (error) {
            // Its server is away: the pathways keep their order, asked again later.
        }
        if (!this.running) return;
        this.steeringTimer = setTimeout(() => this.steer(this.steering), wait * 1000);
    }
}
