import CatbirdSupport

/// The clock of one ``GlobMatcher`` or ``SimpleRegexMatcher`` search: read only every
/// ``stepsPerRead`` steps of a long search, so a short search reads none, as ICU reads it only
/// between blocks of backtracking steps.
///
/// It also keeps the thread's CPU time (``ThreadCPUTime``) at its first read, so that a long
/// search can be found slow by the rule ICU's searches are (``ICUExpression``,
/// docs/tenancy.md#slow-regular-expressions) without any clock read in a short one. The time
/// before the first read (at most ``stepsPerRead`` steps, some 15 µs) is not counted: a search
/// is found slow a little later than an ICU search of the same length would be, never sooner
/// (tester finding tester30c-F3: the glob and the automaton were never found slow, so the
/// default tenant's long wildcards sent every shard request reaching them to the matching lane).
struct SearchClock {
    /// Steps of a search between two reads of the clock: 16,384 (about 15 µs; ICU reads it
    /// every 10,000 or so backtracking steps).
    static let stepsPerRead = 16_384

    /// When the search stops; nil: it runs to the end, reading no clock.
    let deadline: ContinuousClock.Instant?
    /// The thread's CPU time at the first read; nil until then.
    private(set) var firstRead: Duration?

    init(deadline: ContinuousClock.Instant?) {
        self.deadline = deadline
    }

    /// Whether ``deadline`` has passed (never, without one). The first call also notes the
    /// thread's CPU time.
    mutating func deadlinePassed() -> Bool {
        guard let deadline else { return false }
        if firstRead == nil { firstRead = ThreadCPUTime.now() }
        return WholeBudget.hasPassed(deadline, now: .now)
    }

    /// The thread's CPU time since the first read: how long the search worked, less its first
    /// ``stepsPerRead`` steps; `.zero` when it never read the clock (a short search).
    func workedSinceFirstRead() -> Duration {
        firstRead.map { ThreadCPUTime.now() - $0 } ?? .zero
    }
}

/// A matcher whose search reads a ``SearchClock`` (``GlobMatcher``, ``SimpleRegexMatcher``).
protocol ClockedMatcher {
    /// Whether the matcher finds `subject`, ``MatchOutcome/outOfTime`` when `clock`'s deadline
    /// passed during the search, or nil for a subject it leaves to ICU.
    func matches(_ subject: UnsafeBufferPointer<UInt8>, clock: inout SearchClock) -> MatchOutcome?
}
