// Keeping to the live edge (the MSE engine): the hold-back behind it at the start, and four times a
// second gap jumping, catching up and latency bookkeeping.

/** The player's methods for this job, taken on by ``OnairPlayer``. */
export class LiveEdge {
    /**
     * Once, soon after the start: moves the playhead to the frame captured the hold-back ago
     * by the wall clock (PROGRAM-DATE-TIME), when that frame is buffered. Starting at the
     * beginning of the chosen unit would add up to a unit's length to the latency.
     */
    position() {
        if (this.positioned || !this.startedPlaying || !this.timeline.length) return;
        if (this.rewound) {
            this.positioned = true;
            return;
        }
        const video = this.video;
        const buffered = video.buffered;
        const wanted = Date.now() - this.holdBack(this.playlist) * 1000;
        const unit = this.timeline.find((u) => u.dateTime !== null && u.dateTime <= wanted && wanted < u.dateTime + (u.end - u.start) * 1000);
        if (unit) {
            const time = unit.start + (wanted - unit.dateTime) / 1000;
            const end = buffered.end(buffered.length - 1);
            if (time > video.currentTime && time < end - 0.1) {
                this.seekBuffered(time);
                this.positioned = true;
            }
        }
        if (Date.now() - this.startedAt > 5000) this.positioned = true;
    }

    /**
     * Moves the playhead to `time`, or when `time` falls between two buffered ranges (a hole a
     * rendition switch left, which nothing will fill), to the start of the next one: a seek into a
     * hole never completes, and the video would show one picture for good.
     */
    seekBuffered(time) {
        const buffered = this.video.buffered;
        for (let i = 0; i < buffered.length; i++) {
            if (time < buffered.start(i)) {
                this.video.currentTime = buffered.start(i) + 0.05;
                return;
            }
            if (time < buffered.end(i)) break;
        }
        this.video.currentTime = time;
    }

    /** Four times a second: latency bookkeeping, and for MSE gap jumping and catching up. */
    tick() {
        const video = this.video;
        const buffered = video.buffered;
        if (!this.attached || !buffered.length) return;
        const end = buffered.end(buffered.length - 1);
        if (this.engine === "native") {
            // The browser appends the newest listed segment as it appears: its end is that wall time.
            const segments = this.playlist ? this.playlist.segments : [];
            const newest = segments[segments.length - 1];
            if (end > this.lastBufferedEnd + 0.1 && newest && newest.dateTime !== null) {
                this.offset = newest.dateTime + newest.duration * 1000 - end * 1000;
            }
            this.lastBufferedEnd = end;
            return;
        }
        this.updateSeekable(end);
        if (video.paused || video.seeking || !this.playlist) return;
        this.position();
        const holdBack = this.holdBack(this.playlist);
        // How much more than the hold-back may build up before speeding up, and before jumping.
        const slack = this.playlist.partTarget ? 0.3 : 1.5 * this.playlist.targetDuration;
        const jump = this.playlist.partTarget ? 1.5 : 4 * this.playlist.targetDuration;
        const behind = end - video.currentTime;
        const inRange = Array.from({ length: buffered.length }, (_, i) => i).find(
            (i) => buffered.start(i) <= video.currentTime + 0.1 && video.currentTime < buffered.end(i) - 0.1
        );
        if (inRange === undefined) {
            // A gap (a missing segment, or the start): go on at the next buffered media.
            for (let i = 0; i < buffered.length; i++) {
                if (buffered.start(i) > video.currentTime) {
                    video.currentTime = buffered.start(i) + 0.05;
                    return;
                }
            }
        } else if (this.fromStart || this.rewound) {
            return;
        } else if (this.state === "live" && behind > holdBack + jump) {
            this.seekBuffered(end - holdBack);
        } else if (this.state === "live" && behind > holdBack + slack) {
            video.playbackRate = 1.1;
        } else if (video.playbackRate !== 1 && behind < holdBack + slack / 3) {
            video.playbackRate = 1;
        }
    }
}
