import CatbirdStorage
import CatbirdSupport
import Synchronization

/// The highest journal id of each tenant that retention deleted (its age, row and byte limits:
/// docs/operations.md#retention), since the server started, so that a count, find, listing or
/// wait over a range that reached those entries says so instead of silently missing them
/// (try9b F2: a noisy tenant's flood pruned a quiet tenant's journal and its `count` answered 0
/// as if its app had never sent the requests).
///
/// Kept in memory, one id per tenant that lost entries (so bounded by the tenants): a restart
/// forgets it. A tenant's journal clear or drop forgets its id (the entries after it start a
/// new range).
public final class JournalPruned: Sendable {
    private let floors = Mutex<[TenantID: Int64]>([:])

    public init() {}

    /// The highest id of `tenant`'s entries deleted by retention; 0 when none was.
    public func through(_ tenant: TenantID) -> Int64 {
        floors.withLock { $0[tenant] ?? 0 }
    }

    /// Whether retention deleted some of `tenant`'s entries after `since` (an entry id: the
    /// start of a range asked for; 0 for the whole journal).
    public func reaches(_ tenant: TenantID, after since: Int64) -> Bool {
        through(tenant) > since
    }

    /// Notes that retention deleted `tenant`'s entries up to `id`.
    func deleted(_ tenant: TenantID, through id: Int64) {
        floors.withLock { $0[tenant] = max($0[tenant] ?? 0, id) }
    }

    /// Notes the highest id per tenant of rows read as `(tenant, max(id))`.
    func deleted(_ rows: [Row]) {
        for row in rows {
            guard let id = row[1].intValue else { continue }
            deleted(TenantID(row[0].stringValue ?? ""), through: id)
        }
    }

    /// Forgets `tenant`'s id (its journal was cleared or it was dropped).
    func forget(_ tenant: TenantID) {
        floors.withLock { $0[tenant] = nil }
    }

    /// Forgets every tenant's id (every tenant was dropped).
    func forgetAll() {
        floors.withLock { $0.removeAll() }
    }
}
