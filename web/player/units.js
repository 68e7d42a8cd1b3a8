// What the MSE engine appends, in order: whole segments or Low-Latency parts, and how they follow
// one another.

/**
 * What the MSE engine appends, in order: a segment's parts while they are listed (Low-Latency
 * HLS), otherwise the whole segment. `part` is null for a whole segment. Each unit names its
 * init segment, and the first unit after a discontinuity (a restarted broadcast) says so.
 */
export function mediaUnits(playlist) {
    const units = [];
    const add = (sequence, parts, dateTime, discontinuity, init) => {
        let offset = 0;
        parts.forEach((part, index) => {
            units.push({
                sequence,
                part: index,
                uri: part.uri,
                duration: part.duration,
                independent: part.independent,
                dateTime: dateTime === null ? null : dateTime + offset * 1000,
                discontinuity: discontinuity && index === 0,
                init,
            });
            offset += part.duration;
        });
    };
    for (const segment of playlist.segments) {
        if (segment.parts.length)
            add(segment.sequence, segment.parts, segment.dateTime, segment.discontinuity, segment.init);
        else
            units.push({
                sequence: segment.sequence,
                part: null,
                uri: segment.uri,
                duration: segment.duration,
                independent: true,
                dateTime: segment.dateTime,
                discontinuity: segment.discontinuity,
                init: segment.init,
            });
    }
    add(
        playlist.mediaSequence + playlist.segments.length,
        playlist.openParts,
        playlist.openDateTime,
        playlist.openDiscontinuity,
        playlist.openInit,
    );
    return units;
}

/** True when `unit` comes after `last` (a whole segment covers all of its parts). */
export function isAfter(unit, last) {
    return (
        unit.sequence > last.sequence ||
        (unit.sequence === last.sequence && last.part !== null && unit.part !== null && unit.part > last.part)
    );
}

/** True when `unit` follows `last` with nothing between. */
export function follows(unit, last) {
    if (unit.sequence === last.sequence) return last.part !== null && unit.part === last.part + 1;
    return unit.sequence === last.sequence + 1 && (unit.part === null || unit.part === 0);
}
