/// Whether a regular expression is searched within a worker's short slice of time, and for
/// what (docs/tenancy.md#slow-regular-expressions): an ICU expression marked slow is not
/// started within a slice (``ICUExpression``).
public enum RegexpSlice: Sendable, Equatable {
    /// The request's whole evaluation budget (the matching lane, journal queries): a marked
    /// expression runs; one that finishes within ``length``, its own search measured from its
    /// own start (its thread's CPU time), on a subject at least as long as the one it was
    /// marked on, loses its mark.
    case whole
    /// Matching a request on a worker, within ``length`` from the request's start: a marked
    /// expression is not started; one stopped at the slice's end after its own search ran
    /// ``markedAfter`` or more is marked.
    case matching
    /// A 404's near-miss comparison on a worker: a marked expression is not started, and none
    /// is marked (the comparison reaches other tenants' mocks, and its time is the request's).
    case comparing
    /// Matching a request on the body lane (its body is over the 64 KiB a worker reads:
    /// docs/tenancy.md#large-bodies), within a slice that grows with the body: every pass over
    /// the body runs (its ``RequestBodyScope`` admits every pass), a marked expression is not
    /// started, and none is marked (a mark set on such a long subject could hardly be cleared, and would send the
    /// mock's requests with small bodies to the matching lane for good).
    case bodyLane

    /// A worker's slice: 1 ms of regular-expression time per request (ICU checks it about every
    /// 10,000 backtracking steps, so a worker is held a few milliseconds at most).
    public static let length = Duration.milliseconds(1)
    /// How long an expression's own search, from its own start, must have run, when stopped at
    /// the end of a slice, to be marked slow: half a slice (0.5 ms) of its thread's CPU time
    /// (``ThreadCPUTime``). One that started after earlier work had used up the slice, or
    /// whose thread waited for a core meanwhile, is stopped, but not marked.
    public static let markedAfter = length / 2

    /// Whether the search runs within a slice (``matching``, ``comparing`` or ``bodyLane``).
    public var isSlice: Bool { self != .whole }
}
