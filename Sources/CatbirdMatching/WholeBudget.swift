import CatbirdSupport

/// A request's whole evaluation budget (docs/matching.md#evaluation-budget) counted in the CPU
/// time of the thread that matches it, not in wall time: the matching lanes run at nice 10, so
/// on a busy machine a wall-clock budget ran out while the search had hardly run, and which
/// mock answered depended on the machine's load (tester findings tester59b-F3, tester60a-F3: a
/// linear body regexp on a 200 KB body, 26 ms on an idle machine, fell through to a catch-all
/// 20 times of 20 with three busy processes).
///
/// The searches keep reading the wall clock (cheap); only once the request's deadline has
/// passed on it is the thread's CPU time read (``ThreadCPUTime``): the search goes on while the
/// thread has used less than the budget since matching began, up to ``wallCap`` times the
/// budget of wall time, so a starved thread still ends (and says so: ``starvedAfter``). A
/// deadline other than the request's (a worker's slice, the default tenant's 1 ms for another
/// tenant's request) stays wall time.
public enum WholeBudget {
    /// How many budgets of wall time a request's matching may take at most: 30 (3 s for the
    /// 100 ms budget). A thread at nice 10 (the matching lanes') gets about a tenth of a core
    /// beside one busy process at nice 0 on it, a twentieth beside two; at 10 budgets (1 s) a
    /// linear body regexp on a 300 KB body, 40 ms of work, ran out of the cap beside two busy
    /// loops every time, and the request fell through to a catch-all (tester finding tester61a-F1).
    public static let wallCap = 30

    private struct Counting {
        let deadline: ContinuousClock.Instant
        let cap: ContinuousClock.Instant
        let startedWorking: Duration
        let budget: Duration
        /// The CPU time worked when the wall cap ended a search (``starvedAfter``).
        var cappedAfter: Duration?
    }

    /// The request being matched on this thread with its whole budget; nil outside ``counting(_:deadline:_:)``.
    private static let current = PerThreadMemo<Counting?> { nil }

    /// Runs `body`, the matching of a request whose whole `budget` ends at `deadline` (the
    /// call's start plus `budget`), with that deadline counted in this thread's CPU time.
    public static func counting<T>(_ budget: Duration, deadline: ContinuousClock.Instant, _ body: () -> T) -> T {
        let counting = Counting(
            deadline: deadline, cap: deadline.advanced(by: budget * (wallCap - 1)), startedWorking: ThreadCPUTime.now(), budget: budget)
        current.with { $0 = counting }
        defer { current.with { $0 = nil } }
        return body()
    }

    /// Whether a search on this thread must stop at `deadline` now (`now`: the wall clock,
    /// read by the caller): not before the wall clock reaches it; then at once, unless it is
    /// the deadline of the request being counted, which ends when the thread has worked the
    /// budget since matching began or at the wall cap.
    static func hasPassed(_ deadline: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool {
        guard now >= deadline else { return false }
        return current.with { counting in
            guard let request = counting, request.deadline == deadline else { return true }
            let worked = ThreadCPUTime.now() - request.startedWorking
            if worked >= request.budget { return true }
            guard now >= request.cap else { return false }
            counting?.cappedAfter = worked
            return true
        }
    }

    /// The CPU time the request being matched on this thread had worked when the wall cap, not
    /// its budget of work, ended a search (the machine gave the thread too little time); nil
    /// when not, and outside ``counting(_:deadline:_:)``. Read by the caller's out-of-time
    /// callback, so that what it says names the cap (tester finding tester61a-F1: the request's
    /// `problem` said "ran out of the 100 ms evaluation budget" after 50 ms of work).
    public static var starvedAfter: Duration? {
        current.with { $0?.cappedAfter }
    }
}
