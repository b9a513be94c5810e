/// When a request's answer leaves, relative to its journal entry and mock hit reaching SQLite
/// (`--durability`, `CATBIRD_DURABILITY`; the promises are in README.md#durability).
public enum Durability: String, Sendable, CaseIterable {
    /// The answer leaves at once; the journal entry and the mock's hit count or used-up limit are
    /// committed a few milliseconds later, in the writer's next batch. A process killed in that
    /// window (kill -9, the OOM killer) loses those entries and gives the hits back.
    case relaxed
    /// The answer leaves only once its journal entry and mock hit are committed (group commit:
    /// the writer commits a batch, then releases every answer in it; a waiting request holds no
    /// worker thread). Whatever a client received is in the journal after any process crash.
    case strict
}
