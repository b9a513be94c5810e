import Foundation

/// The journal writer's rounds are failing (``JournalWriter/failure``): since when, why, how
/// many rounds in a row, and what became of their rows. Cleared by the next round that commits,
/// or, with nothing left to write, by the writer's own check that the database takes writes
/// again (``JournalWriter``'s probe, at the back-off's pace; tester finding T19B-F12).
public struct JournalWriterFailure: Sendable, Equatable {
    /// When the first failing round of this run failed.
    public var since: Date
    /// The cause of the last failure, in a few words (`the database is busy (locked by another
    /// connection); try again`, `the database file was deleted or replaced under the running
    /// server: …`).
    public var reason: String
    /// Failed rounds in a row (the writer waits longer between them: 100 ms doubling to 2 s).
    public var rounds = 1
    /// Whether the last failed round's rows stay queued to be tried again (a cause that passes,
    /// `SQLiteError.isTransient`, with relaxed durability), rather than dropped
    /// (a file deleted or replaced, a statement error, strict durability's third attempt).
    public var keptQueued = true
    /// Journal rows dropped since ``since``: by failed rounds and by appends that found the queue
    /// full (``JournalWriter/appendPatience``). 0 while every failed row stays queued.
    public var droppedRows = 0
    /// The writer's checks that failed since the last failed round, made while it had nothing
    /// to write; they lengthen the wait between checks as ``rounds`` do.
    public var probes = 0
    /// For a round still being tried (``JournalWriter/failure`` before the round is dropped or
    /// commits): its attempts that failed so far, and how many it gets (strict durability's 3, or
    /// a statement error's); 0 and 0 for a failed round.
    public var attemptsFailed = 0
    public var attemptsAllowed = 0
}
