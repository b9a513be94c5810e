/// What the ``JournalWriter`` has done since it started, and its queue at one moment.
public struct JournalWriterStatistics: Sendable, Equatable {
    /// Upper bounds of the rows-per-commit buckets (a commit of n rows counts in every bucket
    /// whose bound is at least n): 1, 10, 100 and ``JournalWriter/maxBatchSize``.
    public static let rowsPerCommitBounds = [1, 10, 100, JournalWriter.maxBatchSize]

    /// Entries not yet written: queued, and in the round under way.
    public var queuedEntries = 0
    /// Their bytes, counted as for ``JournalWriter/byteCapacity``.
    public var queuedBytes = 0
    /// Large entries held out of the queue for their tenant's share, at one moment
    /// (``JournalWriter/appendOrHold(_:)``; their answers wait with them).
    public var heldEntries = 0
    /// Large entries held for their tenant's share since the writer started.
    public var heldForShare = 0
    /// The most entries that were held at once since the writer started.
    public var mostHeld = 0
    /// The most entries that were waiting at once since the writer started (how far the
    /// writer fell behind at worst; ``JournalWriter/capacity`` is where appends start to wait).
    public var longestQueue = 0
    /// The most bytes that were waiting at once, counted as for ``JournalWriter/byteCapacity``.
    public var longestQueueBytes = 0
    /// Transactions the writer has run (each of 1 to ``JournalWriter/maxBatchSize`` rows).
    public var commits = 0
    /// Rows those transactions held, in all.
    public var rows = 0
    /// Rows dropped (each drop also logged as an error): after three failed attempts for a
    /// lasting cause, at a stop while the database does not take writes, or appended while the
    /// queue was full and the writer failing for longer than ``JournalWriter/appendPatience``.
    public var droppedRows = 0
    /// Amendments (``JournalWriter/amend(_:problem:filePath:)``: a `problem` added to an entry already
    /// queued, such as an answer its client hung up on) dropped with their round, as rows are.
    public var droppedAmendments = 0
    /// Mocks whose held hits (hits of dropped entries, written by a later round) were not
    /// stored because the writer stopped while the database did not take writes.
    public var droppedHits = 0
    /// Mock hits of dropped entries the `mocks` rows do not show yet (``HeldHits``: written by
    /// a later round once the database takes writes again; lost if the server stops before),
    /// at one moment.
    public var heldHits = 0
    /// Commits of at most ``rowsPerCommitBounds``[i] rows, cumulative like a Prometheus histogram.
    public var commitsAtMost: [Int] = Array(repeating: 0, count: rowsPerCommitBounds.count)

    mutating func recordCommit(rows count: Int) {
        commits += 1
        rows += count
        for (index, bound) in Self.rowsPerCommitBounds.enumerated() where count <= bound {
            commitsAtMost[index] += 1
        }
    }
}
