import CatbirdDomain
import CatbirdMatching
import CatbirdSupport
import CatbirdWire

/// The note a shard's `wait` 408 ends with when the default tenant received a request the
/// pattern matches during the wait: the app sent it without `X-Catbird-Parallel-Id`, the
/// commonest mistake of a fleet. The Swift client's `assertRequested` adds the same note from
/// a second query; a team whose tests are not in Swift (an Android shard, a Python harness) got
/// only a timeout listing the shard's own journal (tester finding tester60b-F2).
enum MissingParallelIdNote {
    /// How long the default tenant's journal is searched at most: 200 ms (a longer search
    /// gives no note).
    static let searchLimit = Duration.milliseconds(200)

    /// `; the default tenant has a request matching it, sent without X-Catbird-Parallel-Id (or with
    /// it empty): #12 POST "/api/login" → 404; is the app sending its parallel id ("shard-1")?`, for the
    /// first entry of the default tenant after `since` that `pattern` matches; for a pattern with
    /// a body pattern, when none does, the first that matches all but it, said so (`… a request
    /// matching it but for the body pattern …`: its body refused, 413, or cut by the journal;
    /// tester finding tester63a-F3). Nil for the default tenant's own wait, when there is none,
    /// or when the search did not finish.
    static func note(_ journal: Journal, tenant: TenantID, pattern: CompiledRequestPattern, after since: Int64) -> String? {
        guard !tenant.isDefault else { return nil }
        var matching = "matching it"
        var found = first(journal, pattern, after: since)
        if found == nil, let withoutBody = pattern.withoutBody, let entry = first(journal, withoutBody, after: since) {
            found = entry
            matching = "matching it but for the body pattern (its body refused or cut by the journal)"
        }
        guard let entry = found else { return nil }
        let status = entry.response.status.map(String.init) ?? "?"
        return "; the default tenant has a request \(matching), sent without X-Catbird-Parallel-Id (or with it empty): #\(entry.id) "
            + "\(entry.method.rawValue) \(JSONText.shortString(entry.url)) → \(status); is the app sending its parallel id "
            + "(\(JSONText.shortString(tenant.rawValue)))?"
    }

    /// The default tenant's first entry after `since` that `pattern` matches, waiting for its
    /// queued rows at most ``searchLimit`` (a journal writer held by a locked or full database
    /// would otherwise hold the 408 for its 5-s patience).
    private static func first(_ journal: Journal, _ pattern: CompiledRequestPattern, after since: Int64) -> CatbirdRequest? {
        let deadline = ContinuousClock.now.advanced(by: searchLimit)
        return (try? journal.firstMatch(of: .defaultTenant, matching: pattern, after: since, timeLimit: searchLimit, flushingBefore: deadline))?
            .entry
    }
}
