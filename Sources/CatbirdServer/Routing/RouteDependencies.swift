import CatbirdDomain
import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport
import Foundation
import Synchronization

/// What the routes work with; built once at start-up by ``CatbirdServer``.
struct RouteDependencies: Sendable {
    let mocks: MockStore
    let journal: Journal
    let tenants: TenantDirectory
    /// `/catbird/api/sql`, where user SQL sees the caller's tenant only.
    let sql: TenantSQL
    /// The threads SQL queries run on (one per connection of `sql`), apart from the control pool.
    let sqlPool: HTTPWorkPool<TenantID>
    let log: Logger
    /// The mocks directory's file serving, when `--mocks-dir` is set and not recording.
    let files: FileServing?
    /// Redirect and proxy modes' forwarding, and record mode's writer; nil when neither mode is on.
    let upstream: UpstreamServing?
    let settings: CatbirdServer.Settings
    /// The server's own base URL, known once it is listening.
    let origin: ServerOrigin
    /// What is wrong with the database file now, for `GET /catbird/api/health`.
    let storageFaults: StorageFaults
    /// The read-only connections, where health re-checks a corrupt file (``StorageFaults``).
    let reader: DatabasePool
    /// The write connection, where health tries one write while a full disk or a write error
    /// is reported (``StorageFaults/recheckWriting(on:notMoreOftenThan:)``).
    let writer: SerialDatabase
    /// Request counts and the database's size for `/catbird/metrics`.
    let metrics: ServerMetrics
    /// Who may use the cross-tenant routes (docs/operations.md#admin-token).
    let admin: AdminAccess
    /// Retention's totals for `/catbird/api/info` and `/catbird/metrics`.
    let pruner: RetentionPruner
    /// Each mock's answer as its hits share it in the current second (``MockServing``), which
    /// `update` makes for the mock it stored before its 201.
    let sentAnswers: SentMockAnswers
    /// When health first saw the `--mocks-dir` directory gone, for its `since`.
    let mocksDirectoryGone = MocksDirectoryGone()
    /// The request bodies parked waits hold, bounded per tenant and for all (try10b F2, addendum).
    let parkedWaits: ParkedWaitBytes
    /// Each tenant's places for parked requests (delays, long polls, waits, forwarded requests),
    /// a share of the connection slots (tester finding T19A-F2).
    let parkedRequests: ParkedRequests
    /// The server's buffered-body budget (`--max-buffered-bodies`), which large control answers
    /// are counted in until their clients have read them (``ControlAnswerBytes``).
    let bodyBudget: ByteBudget
    /// The HTTP server's connection slots, for `/catbird/metrics` (``CatbirdHTTP/HTTPConnectionCounts``).
    let connections: HTTPConnectionCounts
    /// An opaque id of this server run (a random UUID, new at every start), which the journal
    /// listing carries as `serverRun` (``JournalFollowing``): a client following the journal
    /// sees it change when the server restarted, perhaps on a fresh database whose ids start
    /// again at 1 (tester finding T18A-F3).
    let serverRun = UUID().uuidString.lowercased()
}

/// The base URL the server listens on, e.g. `http://127.0.0.1:8080` (set when it starts; the
/// port may have been chosen by the system).
final class ServerOrigin: Sendable {
    private let value = Mutex("")

    func set(_ url: String) { value.withLock { $0 = url } }

    var url: String { value.withLock { $0 } }
}
