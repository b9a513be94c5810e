import Foundation

/// The journal writer's rounds are failing (``JournalWriter/failure``): since when, why, and how
/// many rounds in a row. Cleared by the next round that commits.
public struct JournalWriterFailure: Sendable, Equatable {
    /// When the first failing round of this run failed.
    public var since: Date
    /// The last failure, in a few words (`the database is busy (locked by another connection); try again`).
    public var reason: String
    /// Failed rounds in a row (the writer waits longer between them: 100 ms doubling to 2 s).
    public var rounds = 1
}
