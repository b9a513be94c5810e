import CatbirdDomain
import CatbirdMatching
import CatbirdSupport

/// The note a shard's `wait` 408 ends with when the default tenant received a request the
/// pattern matches during the wait: the app sent it without `X-Catbird-Parallel-Id`, the
/// commonest mistake of a fleet. The Swift client's `assertRequested` adds the same note from
/// a second query; a team whose tests are not in Swift (an Android shard, a Python harness) got
/// only a timeout listing the shard's own journal (tester finding tester60b-F2).
enum MissingParallelIdNote {
    /// How long the default tenant's journal is searched at most: 200 ms (a longer search
    /// gives no note).
    static let searchLimit = Duration.milliseconds(200)

    /// `; the default tenant has a request matching it, sent without X-Catbird-Parallel-Id: #12
    /// POST /api/login → 404; is the app sending its parallel id ("shard-1")?`, for the first
    /// entry of the default tenant after `since` that `pattern` matches; nil for the default
    /// tenant's own wait, when there is none, or when the search did not finish.
    static func note(_ journal: Journal, tenant: TenantID, pattern: CompiledRequestPattern, after since: Int64) -> String? {
        guard !tenant.isDefault,
              let found = try? journal.firstMatch(of: .defaultTenant, matching: pattern, after: since, timeLimit: searchLimit),
              let entry = found.entry else { return nil }
        let status = entry.response.status.map(String.init) ?? "?"
        return "; the default tenant has a request matching it, sent without X-Catbird-Parallel-Id: #\(entry.id) "
            + "\(entry.method.rawValue) \(JSONText.shortString(entry.url)) → \(status); is the app sending its parallel id "
            + "(\(JSONText.shortString(tenant.rawValue)))?"
    }
}
