import CatbirdSupport

/// A tenant's SQL query waited for the journal writer to commit the tenant's requests answered
/// before it (a query sees them: docs/protocol.md#read-your-writes) until the bound on waiting
/// (`Settings.sqlWaitLimit`, 5 seconds by default, from the query's arrival), and never ran:
/// 503, with `Retry-After` (docs/protocol.md#sql). The writer was behind, or its transaction
/// waited for a database file another process held. Before, that flush had no bound: neither
/// the 2-second time limit (which starts when the query runs) nor the wait bound covered it,
/// and the query waited as long as the writer did, holding one of the SQL threads.
public struct SQLFlushWaitError: ServerBusyError, Sendable, Equatable {
    /// How long the query waited for the journal, in milliseconds.
    public let waitedMilliseconds: Int

    public init(waitedMilliseconds: Int) {
        self.waitedMilliseconds = waitedMilliseconds
    }

    public var status: Int { 503 }

    public var reason: String {
        "the query never ran: it waited \(waitedMilliseconds) ms, the most a query waits, for the journal writer to store this "
            + "tenant's requests answered before it (a query sees them; the writer is behind, or the database file is busy); "
            + "retry it (Retry-After)"
    }
}
