import CatbirdSupport

/// A tenant's SQL query waited for one of the SQL connections until the bound on waiting
/// (`Settings.sqlWaitLimit`, 5 seconds by default) while every one was busy with other queries,
/// and never ran: 503, with `Retry-After` (docs/protocol.md#sql), logged as a warning (load, not
/// a fault: ``ServerBusyError``). The query's own time limit
/// starts only when it runs, so waiting is never blamed on the query (tester finding T11-F2: an
/// idle tenant's `select 1` was refused with 400 "interrupted after its time limit of 2000 ms"
/// after waiting its whole budget behind four other tenants' slow queries).
public struct SQLWaitError: ServerBusyError, Sendable, Equatable {
    /// How long the query waited, in milliseconds.
    public let waitedMilliseconds: Int
    /// The SQL connections, each running one query at a time.
    public let connections: Int
    /// Whether one of the busy connections ran a query of the same tenant (its query before
    /// this one: a tenant's queries run one at a time).
    public let ownQueryRunning: Bool

    public init(waitedMilliseconds: Int, connections: Int, ownQueryRunning: Bool) {
        self.waitedMilliseconds = waitedMilliseconds
        self.connections = connections
        self.ownQueryRunning = ownQueryRunning
    }

    public var status: Int { 503 }

    public var reason: String {
        let busy = ownQueryRunning ? "this tenant's query before it and other tenants' queries" : "other tenants' queries"
        return "the query never ran: it waited \(waitedMilliseconds) ms, the most a query waits, for one of the \(connections) "
            + "SQL connections, all busy with \(busy) (docs/tenancy.md#fair-shares); retry it (Retry-After): its time limit "
            + "counts from when it starts"
    }
}
