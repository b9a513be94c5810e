/// A limit on the CPU time the calling thread spends from a start (``ThreadCPUTime``), checked
/// where a wall-clock deadline would be and at the same cost, so that a thread descheduled on
/// a loaded machine keeps its budget. Each check reads the wall clock (in the vDSO); the CPU
/// clock (a system call) only when the wall clock leaves the answer open, as a thread's CPU
/// time never runs ahead of the wall clock: not at all within `lead` of the start (most
/// uses end sooner), then once, which counts all the wall-clock time before it as spent (a
/// thread descheduled in its first `lead` loses that much of the limit), and again only once
/// the wall clock has passed what the last reading left. A check comes at most the work done
/// since the one before it late, as with a wall-clock deadline.
///
/// For one thread: CPU time is per thread, so a limit is checked on the thread that made it.
/// Where the CPU clock cannot be read it is a wall-clock limit.
public struct ThreadCPULimit {
    /// How long after its start a limit first reads the CPU clock, by default: 1 ms.
    public static let defaultLead = Duration.milliseconds(1)

    private let start: ContinuousClock.Instant
    private let limit: Duration
    /// Before this, the wall clock alone says there is time left.
    private var nextReading: ContinuousClock.Instant
    /// The thread's CPU time at which the limit is spent; nil before the first reading.
    private var cpuDeadline: Duration?

    /// A limit of `limit` of the calling thread's CPU time from `start` (a wall-clock instant,
    /// at most microseconds past).
    /// - Parameter lead: how long after `start` the CPU clock is first read (at most `limit`).
    public init(_ limit: Duration, from start: ContinuousClock.Instant = .now, lead: Duration = defaultLead) {
        self.start = start
        self.limit = limit
        nextReading = start.advanced(by: min(lead, limit))
    }

    /// Whether the thread has spent less than the limit since the start.
    public mutating func hasTimeLeft() -> Bool {
        let now = ContinuousClock.now
        if now < nextReading { return true }
        let cpu = ThreadCPUTime.now()
        guard cpu > .zero else { return now - start < limit }
        let deadline = cpuDeadline ?? cpu + limit - (now - start)
        cpuDeadline = deadline
        let left = deadline - cpu
        guard left > .zero else { return false }
        nextReading = now.advanced(by: left)
        return true
    }
}
