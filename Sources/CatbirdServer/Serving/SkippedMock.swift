import CatbirdDomain
import CatbirdMatching

/// A mock that counted as not matching a request because its regular expression (or body
/// pattern) did not finish (docs/matching.md#evaluation-budget), as a 404's reason and the log
/// name it (``NotFoundAnswer/outOfTimeSummary(_:for:)``).
struct SkippedMock {
    let mock: Mock
    /// Whether it was skipped as a default-tenant mock marked slow that another tenant's
    /// request gives at most a slice (docs/tenancy.md#slow-regular-expressions), rather than
    /// for running out of the request's budget: a search that ran out of the whole budget and
    /// marked the expression as it did was not charged (tester59b-F4's review: its 404 said
    /// "found slow on a worker" of a search made on the matching lane, which now marks too).
    let charged: Bool
    /// The CPU time its request's matching had when the wall cap of the whole budget ended it
    /// (``WholeBudget/starvedAfter``: a busy machine gave the matching thread too little time);
    /// nil when the budget of work ran out, or for a charged skip.
    var starvedAfter: Duration? = nil

    /// `mock`, skipped for running out of the whole budget of the request being matched on this
    /// thread: called from within that matching (``MockStore``'s out-of-time callback), where
    /// ``WholeBudget/starvedAfter`` tells whether the wall cap ended it.
    static func outOfTime(_ mock: Mock) -> SkippedMock {
        SkippedMock(mock: mock, charged: false, starvedAfter: WholeBudget.starvedAfter)
    }
}
