/// What the largest rendition of a ladder does when the machine cannot encode it in real time:
/// rather than let its encoder fall behind and drop frames at random (its keyframes would then
/// leave the grid the other rungs keep), it takes a new picture only every `step` frames and
/// holds the one before in between: those frames are not encoded, except the first of each
/// segment and of each Low-Latency part, which encode the picture before again. Every rung keeps
/// the grid and its parts; only the largest moves less smoothly while it lasts. The step
/// grows while frames are still dropped (up to every sixth picture) and shrinks again after ten
/// seconds without one. Pure: fed the frames its queue dropped, by media time.
public struct RungShedding: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        case started
        case ended
    }

    /// Frames dropped within ``window`` seconds that start shedding, or shed more.
    public static let dropsToStart = 3
    public static let window = 2.0
    /// Seconds without a dropped frame that shed one step less.
    public static let calm = 10.0
    public static let largestStep = 6

    /// 1: every picture is new; n: one in n.
    public private(set) var step = 1
    /// Media times of the drops within the window.
    private var drops: [Double] = []
    /// When the step last changed, or the last drop since.
    private var lastTrouble = 0.0
    private var lastChange = -Double.infinity

    public init() {}

    public var isShedding: Bool { step > 1 }

    /// Takes the frames dropped since the last call, at media time `time`; says when shedding
    /// starts or ends (a change of step in between is not said).
    public mutating func observe(dropped: Int, at time: Double) -> Change? {
        if dropped > 0 {
            drops += Array(repeating: time, count: min(dropped, Self.dropsToStart))
            lastTrouble = time
        }
        drops.removeAll { $0 <= time - Self.window }
        if drops.count >= Self.dropsToStart, step < Self.largestStep, time - lastChange >= Self.window {
            step += 1
            lastChange = time
            lastTrouble = time
            drops.removeAll()
            return step == 2 ? .started : nil
        }
        if isShedding, time - lastTrouble >= Self.calm {
            step -= 1
            lastChange = time
            lastTrouble = time
            return step == 1 ? .ended : nil
        }
        return nil
    }

    /// Whether the frame at `index` gets a new picture: while shedding, only one in `step` does
    /// (a keyframe that falls on a repeat is still a keyframe, of the repeated picture).
    public func takesNewPicture(index: Int64) -> Bool {
        index % Int64(step) == 0
    }
}
