import CatbirdSupport

/// A tenant's SQL query waited until the bound on waiting (`Settings.sqlWaitLimit`, 5 seconds by
/// default, from the query's arrival) and never ran: 503, with `Retry-After`
/// (docs/protocol.md#sql), logged as a warning (load, not a fault: ``ServerBusyError``). What it
/// waited for is ``Waited``. The query's own time limit starts only when it runs, so waiting is
/// never blamed on the query (tester finding T11-F2: an idle tenant's `select 1` was refused
/// with 400 "interrupted after its time limit of 2000 ms" after waiting its whole budget behind
/// four other tenants' slow queries).
public struct SQLWaitError: ServerBusyError, Sendable, Equatable {
    /// What a query waited for when its wait ran out.
    public enum Waited: Sendable, Equatable {
        /// One of the `connections` SQL connections, each running one query at a time, all busy;
        /// `ownQueryRunning`: one ran a query of the same tenant (a tenant's queries run one at a
        /// time).
        case connection(connections: Int, ownQueryRunning: Bool)
        /// The journal writer, to commit the tenant's requests answered before the query (a query
        /// sees them: docs/protocol.md#read-your-writes); it was behind, or its transaction
        /// waited for a database file another process held. That flush was once bounded by
        /// neither the time limit nor the wait bound, and held one of the SQL threads.
        case journal
    }

    /// How long the query waited, in milliseconds.
    public let waitedMilliseconds: Int
    /// What it waited for.
    public let waited: Waited

    public init(waitedMilliseconds: Int, waited: Waited) {
        self.waitedMilliseconds = waitedMilliseconds
        self.waited = waited
    }

    public var status: Int { 503 }

    public var reason: String {
        let start = "the query never ran: it waited \(waitedMilliseconds) ms, the most a query waits, "
        switch waited {
        case let .connection(connections, ownQueryRunning):
            let busy = ownQueryRunning ? "this tenant's query before it and other tenants' queries" : "other tenants' queries"
            return start + "for one of the \(connections) SQL connections, all busy with \(busy) (docs/tenancy.md#fair-shares); "
                + "retry it (Retry-After): its time limit counts from when it starts"
        case .journal:
            return start + "for the journal writer to store this tenant's requests answered before it (a query sees them; "
                + "the writer is behind, or the database file is busy); retry it (Retry-After)"
        }
    }
}
