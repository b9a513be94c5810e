/// Whether a regular expression is searched within a worker's short slice of time, and for
/// what (docs/tenancy.md#slow-regular-expressions): an ICU expression marked slow is not
/// started within a slice (``ICUExpression``).
public enum RegexpSlice: Sendable, Equatable {
    /// The request's whole evaluation budget (the matching lane, journal queries): a marked
    /// expression runs; one that is not slow (``isSlow(worked:length:floor:)`` with ``length``
    /// as the floor), its own search measured from its own start (its thread's CPU time), on a
    /// subject at least as long as the one it was marked on, loses its mark; one that is slow
    /// on a subject too long for a slice to tell (``outgrowsSlice(_:)``) is marked.
    case whole
    /// Matching a request on a worker, within ``length`` from the request's start: a marked
    /// expression is not started; one stopped at the slice's end after its own search ran
    /// ``markedAfter`` or more, and ``timePerUnit`` or more per unit of its subject, is marked.
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
    /// The CPU time a search may take per unit of its subject (UTF-16 code unit for ICU, byte
    /// for the glob and the automaton) and still not be slow: 1 µs, some ten times what a
    /// linear search costs (a body regexp through `NSRegularExpression`: about 100 ns a byte).
    /// A search's time that comes from its subject's length alone is no fault of its pattern
    /// (tester finding tester59b-F4: a plain body regexp of the default tenant, found slow on a
    /// 12 KB body, was skipped for every shard's request: 404s).
    public static let timePerUnit = Duration.microseconds(1)

    /// Whether a search that worked `worked` of its thread's CPU time on a subject of `length`
    /// units was slow: at least `floor` (``markedAfter`` within a slice, ``length`` with the
    /// whole budget) and at least ``timePerUnit`` per unit of the subject.
    public static func isSlow(worked: Duration, length: Int, floor: Duration) -> Bool {
        worked >= floor && worked >= timePerUnit * length
    }

    /// Whether a subject of `length` units is too long for a worker's slice to find a search of
    /// it slow (its ``timePerUnit`` allowance is past the slice): only a search with the whole
    /// budget can, and does (``ICUExpression``).
    public static func outgrowsSlice(_ length: Int) -> Bool {
        timePerUnit * length > Self.length
    }

    /// Whether the search runs within a slice (``matching``, ``comparing`` or ``bodyLane``).
    public var isSlice: Bool { self != .whole }
}
