import CatbirdSupport

/// A journal read (count, find, list, an entry, the requests page, a tenant's summary) waited
/// for the journal writer to store the requests answered before it, the writer's rounds were
/// failing (the database file busy or full: ``JournalWriterFailure``), and the wait ran past
/// ``JournalWriter/readPatience`` (5 s): 503 with `Retry-After`, and the read never ran, rather
/// than an answer that leaves out requests already answered (tester finding T16-F1: a count
/// said 4 for 5 answered requests).
public struct JournalWaitError: ServerBusyError, Sendable, Equatable {
    /// How long the read waited, in milliseconds.
    public let waitedMilliseconds: Int
    /// Why the writer's rounds fail (``JournalWriterFailure/reason``).
    public let failure: String

    public var status: Int { 503 }

    public var reason: String {
        "the query never ran: it waited \(waitedMilliseconds) ms for the journal writer to store the requests answered "
            + "before it, and the writer cannot write them yet (\(failure)); they stay queued, retry it (Retry-After)"
    }
}
