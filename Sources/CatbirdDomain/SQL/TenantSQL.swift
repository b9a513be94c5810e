import CatbirdSQLSandbox
import CatbirdStorage
import CatbirdSupport
import Dispatch
import Synchronization

/// User SQL over one tenant's rows (`POST /catbird/api/sql`, docs/protocol.md#sql): a small pool
/// of ``TenantScopedReader``s on the schema's ``Schema/tenantScope``, so queries of different
/// tenants run side by side, each run after the journal is flushed so that it sees every
/// request answered before it.
///
/// A tenant may have at most ``perTenantLimit`` queries running or waiting at once
/// (``reserve(for:)``); the route runs at most ``runningPerTenant`` of them at once (the SQL
/// pool's per-tenant share), so one tenant's slow queries hold one connection and leave the
/// others to other tenants (docs/tenancy.md#fair-shares).
public final class TenantSQL: Sendable {
    /// Readers in the pool by default: 3 (each holds two read-only connections).
    public static let defaultConnectionCount = 3

    /// Queries one tenant may have running or waiting at once: ``connectionCount`` − 1 (at least 1).
    public let perTenantLimit: Int
    /// Queries of one tenant that run at once: 1. Its other admitted query waits for it in the
    /// tenant's turn, so a tenant's burst holds one of the ``connectionCount`` connections.
    public static let runningPerTenant = 1
    /// How many queries may run at once.
    public let connectionCount: Int
    private let idle: Mutex<[TenantScopedReader]>
    private let all: [TenantScopedReader]
    /// Counts the idle readers.
    private let available: DispatchSemaphore
    private let admission: TenantAdmission
    private let journal: Journal

    /// Opens the pool's connections on the migrated database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file, already migrated (the connections shadow its tables).
    ///   - maxValueLength: the largest string, blob or row a query may build or read, in bytes.
    ///   - connectionCount: readers in the pool (≥ 1).
    ///   - journal: the journal to flush before each query.
    /// - Throws: `SQLiteError` when the connections cannot be opened.
    public init(path: String, maxValueLength: Int, connectionCount: Int = defaultConnectionCount, journal: Journal) throws {
        precondition(connectionCount >= 1, "the SQL pool needs at least one connection")
        var readers: [TenantScopedReader] = []
        for _ in 0..<connectionCount {
            readers.append(try TenantScopedReader(path: path, scope: Schema.tenantScope, maxValueLength: maxValueLength) {
                (connection: Database) throws(SQLiteError) in
                try journal.deletions.registerFloorFunction(on: connection)
            })
        }
        all = readers
        idle = Mutex(readers)
        available = DispatchSemaphore(value: connectionCount)
        self.connectionCount = connectionCount
        perTenantLimit = max(1, connectionCount - 1)
        admission = TenantAdmission(limit: perTenantLimit)
        self.journal = journal
    }

    /// A place for one of `tenant`'s queries, held from before it is queued until it has run,
    /// and given back before its answer is sent (the server's SQL pool does both), or when its
    /// wait for a connection ended it; released by ``TenantReservation/release()``.
    /// - Throws: ``SQLBusyError`` (429) when the tenant already has ``perTenantLimit`` queries
    ///   running or waiting.
    public func reserve(for tenant: TenantID) throws(SQLBusyError) -> TenantReservation {
        guard let reservation = admission.admit(tenant) else { throw SQLBusyError(limit: perTenantLimit) }
        return reservation
    }

    /// Runs one read-only statement over `tenant`'s rows on an idle reader of the pool; see
    /// ``TenantScopedReader/query(_:tenant:parameters:maxRows:timeLimit:deadline:maxResultSize:)``.
    ///
    /// - Parameters:
    ///   - sql: one read-only statement.
    ///   - tenant: whose rows the tables show.
    ///   - parameters: values bound to the `?` placeholders, in order.
    ///   - maxRows: the most rows returned.
    ///   - timeLimit: how long the statement may run, from when it starts on its connection
    ///     (after the journal's flush): time spent waiting is never blamed on it (tester finding
    ///     T11-F2).
    ///   - waitDeadline: when a query still waiting for the journal's flush or a free connection
    ///     gives up.
    ///   - maxResultSize: the most bytes of result (``ReadOnlyQueryResult/size(of:)``).
    /// - Throws: `ReadOnlyQueryError`; ``SQLWaitError`` (`.journal`) when the tenant's journal was not
    ///   written by `waitDeadline`; ``SQLWaitError`` (`.connection`) when no connection came free by it.
    public func query(
        _ sql: String, tenant: TenantID, parameters: [SQLiteValue], maxRows: Int, timeLimit: Duration,
        waitDeadline: ContinuousClock.Instant, maxResultSize: Int
    ) throws -> ReadOnlyQueryResult {
        let flushStarted = ContinuousClock.now
        guard journal.flush(for: tenant, before: waitDeadline) else {
            throw SQLWaitError(waitedMilliseconds: Int((ContinuousClock.now - flushStarted).milliseconds), waited: .journal)
        }
        let wait = max(waitDeadline - ContinuousClock.now, .zero)
        guard available.wait(timeout: .now() + wait.dispatchInterval) == .success else {
            throw SQLWaitError(
                waitedMilliseconds: Int(wait.milliseconds), waited: .connection(connections: connectionCount, ownQueryRunning: false))
        }
        let reader = idle.withLock { $0.removeLast() }
        defer {
            idle.withLock { $0.append(reader) }
            available.signal()
        }
        return try reader.query(
            sql, tenant: tenant.rawValue, parameters: parameters, maxRows: maxRows, timeLimit: timeLimit,
            deadline: ContinuousClock.now + timeLimit, maxResultSize: maxResultSize)
    }

    /// Closes the connections once their running queries are done; later queries fail.
    public func close() {
        for reader in all { reader.close() }
    }
}

/// A tenant asked for another SQL query while ``TenantSQL/perTenantLimit`` of its queries were
/// running or waiting: 429, retry once one has answered.
public struct SQLBusyError: HTTPResponseError, Sendable, Equatable {
    /// The per-tenant limit.
    public let limit: Int

    public var status: Int { 429 }

    public var reason: String {
        "this tenant already has \(limit) SQL \(limit == 1 ? "query" : "queries") running or waiting: "
            + "at most \(limit) per tenant, \(TenantSQL.runningPerTenant) running at once (docs/tenancy.md#fair-shares); "
            + "retry when one has answered"
    }
}
