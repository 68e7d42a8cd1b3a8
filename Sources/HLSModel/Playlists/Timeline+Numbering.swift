extension Timeline {
    /// Whether anything was ever listed or opened: a timeline that has not is free to take up any
    /// numbering.
    public var isUntouched: Bool {
        segments.isEmpty && openParts.isEmpty && nextSequence == startSequence && !ended
    }

    /// Takes up a publisher's numbering for the run that begins now (an origin serving what its
    /// publisher numbered, so that twins fed by one publisher, or an origin restarted empty, serve the
    /// same names): the next segment is the publisher's `sequence`.
    ///
    /// - An untouched timeline takes the number, and the discontinuity numbering the publisher's
    ///   playlist gives that segment (`discontinuitySequence` before it, `discontinuity` its own tag).
    /// - A number past the next one (a publisher restarted on the epoch, or media the origin never got)
    ///   is a jump: the listed segments leave the playlist, which lists only consecutive numbers (they
    ///   stay downloadable for their time), and the next segment follows an EXT-X-DISCONTINUITY.
    /// - The init segment takes the publisher's name (`initSegment`) in both cases.
    /// - The next number itself changes nothing; a lower one (a publisher that numbers from 0 again,
    ///   as ffmpeg does) keeps the timeline's own numbering: a name is never given to other bytes.
    public mutating func followNumbering(
        at sequence: Int, discontinuitySequence publisherDiscontinuities: Int, discontinuity: Bool,
        initSegment publisherInit: MediaFileName? = nil
    ) {
        if isUntouched {
            nextSequence = max(0, sequence)
            firstSequence = nextSequence
            startSequence = nextSequence
            discontinuitySequence = publisherDiscontinuities
            nextIsDiscontinuity = discontinuity
        } else if sequence > nextSequence {
            unlistAll()
            nextSequence = sequence
            firstSequence = sequence
            nextIsDiscontinuity = true
        } else {
            return
        }
        // The run's init segment is named as the publisher names it, else after the run's first
        // segment; never a name already given to other bytes.
        if let name = initSegmentName, initSegments[name] == nil {
            if let publisherInit, case .initSegment = publisherInit, initSegments[publisherInit] == nil {
                initSegmentName = publisherInit
            } else {
                initSegmentName = .initSegment(continuing: nextSequence > 0 ? nextSequence : nil)
            }
        }
    }

    /// A new stream after this one has ended, with other settings (container, target duration,
    /// parts): empty, and numbered on from this one, after an EXT-X-DISCONTINUITY. A publisher's
    /// numbers past the next one are a jump; lower ones keep the timeline's own numbering.
    public func renewed(with configuration: Configuration) -> Timeline {
        var next = Timeline(configuration: configuration, firstSequence: nextSequence)
        next.discontinuitySequence = discontinuitySequence + segments.filter { $0.isListed && $0.discontinuity }.count
        // Numbered before: never free to take up lower numbers.
        next.startSequence = 0
        next.nextIsDiscontinuity = nextSequence > 0
        return next
    }

    /// Every listed segment leaves the playlist, as if the window had slid past it: downloadable for
    /// its duration plus the playlist's, its discontinuity counted into the sequence.
    private mutating func unlistAll() {
        let listed = segments.filter(\.isListed)
        let playlistDuration = listed.reduce(0) { $0 + $1.duration }
        discontinuitySequence += listed.filter(\.discontinuity).count
        for index in segments.indices where segments[index].isListed {
            segments[index].expiresAt = edge + segments[index].duration + playlistDuration
        }
    }
}
