import CatbirdParallelId
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client of a Catbird mock server, for tests.
///
/// ```swift
/// let catbird = Catbird()                          // http://127.0.0.1:8080, default tenant
/// try catbird.send(.add(LoginMock.success))        // mock an endpoint
/// // … drive the app …
/// XCTAssertEqual(try catbird.count(matching: LoginMock.success), 1)
/// try catbird.send(.removeAll)
/// ```
///
/// Every call carries `X-Catbird-Parallel-Id: <parallelId>` when ``parallelId`` is set and not
/// empty (an empty id sends no header: the default tenant), so it sees and changes only that
/// tenant (test shard): its mocks, its journal, its SQL rows. The id is trimmed of spaces, tabs
/// and line breaks at either end, and one holding a control character is refused where it is
/// given (see ``parallelId``).
///
/// Calls come in three forms: a completion handler (``send(_:isolation:completion:)``, as in
/// Catbird 0.11, called back on the session's delegate queue, or on the caller's actor when
/// it has one), `async` (macOS 10.15 / iOS 13
/// and later; cancelling the task cancels the request), and synchronous `throws`, which
/// blocks the calling thread until the answer arrives or the session's request timeout
/// passes. The `async` and synchronous forms never wait for the main queue: a client made
/// without a session runs them on a shared background session, and when a given ``session``
/// delivers its callbacks there and has no delegate, they run on a private twin of it (same
/// configuration) that delivers on a background queue, so a
/// synchronous call is safe on the main thread, inside a `@MainActor` test or inside a
/// `DispatchQueue.main.async` block. A caller-supplied session with a delegate and main-queue
/// callbacks is used as it is; a synchronous call through it from the main thread cannot get
/// its answer and throws `URLError(.timedOut)` after the request timeout plus 5 seconds.
/// Do not call the synchronous forms from the session's own delegate queue when that is a
/// serial background queue: the answer could never be delivered.
///
/// `send(_:)` has no `async` twin, so that existing synchronous calls inside
/// `async` test methods still compile unchanged (an `async` overload would be preferred there
/// and demand `await`).
///
/// Failures: `URLError` when the server cannot be reached or times out, ``CatbirdError`` when
/// it answers with a non-2xx status, and with its 2xx status too when an answer is not
/// Catbird's JSON (the reason names the URL and the answer's start). A call Catbird refuses
/// with 429 because its tenant already has its fair share of SQL queries or slow control calls
/// running (docs/tenancy.md#fair-shares) did nothing and is sent again after a pause (10 ms
/// doubling to 250 ms, or the answer's `Retry-After`), for up to 30 seconds from the first
/// request, before that 429 is thrown.
///
/// Thread safety: a `Catbird` may be shared between threads and tasks; ``parallelId`` is read
/// once per call. Calls from many tasks at once are retried past the tenant's share, as above.
public final class Catbird: @unchecked Sendable {
    // @unchecked Sendable: every stored property but the parallel id and the admin token is
    // immutable (`let`; `ClientSessions` is Sendable, its lazily made sessions behind locks), and
    // the only mutable state, the parallel id and the admin token, lives in `Locked` boxes whose
    // every access takes the lock.

    /// `http://127.0.0.1:8080`, the server's default address.
    public static let localhost = URL(string: "http://127.0.0.1:8080")!

    /// A new default session on every access, as in Catbird 0.11: ephemeral configuration,
    /// 30-second request timeout, callbacks on the main queue.
    /// Because each access makes a new one, a test that calls `invalidateAndCancel()` on the
    /// session it got (0.11's own tests did, in tear-down) leaves every other client working.
    /// A client made without a session does not run its calls on one of these (see
    /// ``init(url:parallelId:)``).
    public static var session: URLSession {
        let session = URLSession(configuration: defaultConfiguration(), delegate: nil, delegateQueue: .main)
        session.sessionDescription = defaultSessionDescription
        return session
    }

    /// The configuration of ``session``: ephemeral, ``defaultRequestTimeout``.
    static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = defaultRequestTimeout
        return configuration
    }

    /// How long ``session`` waits for an answer: 30 seconds, past the server's own 5-second
    /// waits before its explanatory 503 (another process's lock on the database, a journal
    /// writer that cannot write; docs/protocol.md#read-your-writes advises 30 s or more), so
    /// that the test sees the server's reason and `Retry-After`, not a bare `URLError`
    /// timeout (tester finding tester44c-F7: with 5 seconds the client always gave up first).
    static let defaultRequestTimeout: TimeInterval = 30

    /// The description of ``session``.
    static let defaultSessionDescription = "Catbird session"

    /// The server's base URL, such as `http://127.0.0.1:8080`. A path is kept and the API's
    /// paths go below it (`http://host/prefix/catbird/api/mocks`).
    public let url: URL

    /// The session given to ``init(url:session:parallelId:)``, which every call uses (or, for
    /// the `async` and synchronous forms when it delivers on the main queue, a twin with its
    /// configuration; see ``Catbird``). For a client made without one
    /// (``init(url:parallelId:)``), a new ``Catbird/session`` made on first access and kept,
    /// for the caller's own use: that client's calls run on one background session the
    /// process's default clients share.
    public var session: URLSession { sessions.session }

    /// The sessions the calls run on.
    let sessions: ClientSessions

    /// The session the `async` and synchronous forms run on (see ``ClientSessions``).
    var performSession: URLSession { sessions.performSession }

    /// How long a synchronous call waits before throwing `URLError(.timedOut)`; nil to wait
    /// for the answer (see ``ClientSessions/syncDeadline``).
    var syncDeadline: TimeInterval? { sessions.syncDeadline }

    private let parallelIdBox: Locked<String?>

    private let adminTokenBox = Locked<String?>(ProcessInfo.processInfo.environment["CATBIRD_ADMIN_TOKEN"])

    /// The server's admin token (its `--admin-token`), sent as `Authorization: Bearer <token>`
    /// on the admin calls (``tenants()``, ``dropTenant(id:)``) and on a ``send(_:)`` without a
    /// parallel id (the default tenant's mocks are the shared fixtures, the admin's to change on
    /// a server with a token), and on nothing else; nil when the
    /// server has none (then a call without a parallel id is the admin). Read from the
    /// environment variable `CATBIRD_ADMIN_TOKEN` when the client is made
    /// (docs/operations.md#admin-token).
    public var adminToken: String? {
        get { adminTokenBox.current }
        set { adminTokenBox.withLock { $0 = newValue } }
    }

    /// The tenant (test shard) every call is scoped to, sent as `X-Catbird-Parallel-Id`; nil
    /// for the server's default tenant (no header). An empty string also means the default
    /// tenant (it reads back as nil).
    ///
    /// The id is stored as every call and ``launchArguments`` use it, by the rule the app side
    /// (`CatbirdAppConfiguration`) and the server share: spaces, tabs and line breaks at either end
    /// are dropped (`" shard-1 "` and `"shard-1\n"` read back as `shard-1`, the tenant the server
    /// files them under). An id that is only spaces, tabs or line breaks, or that still holds a control character
    /// (U+0000–U+001F, U+007F–U+009F) or a line or paragraph separator, is a programming error
    /// and stops the process with a message naming it, where it is set: no header can carry it,
    /// and sending none would put every call in the default tenant (tester finding T18C-F7).
    public var parallelId: String? {
        get { parallelIdBox.current }
        set {
            let id = ParallelIdRule.validated(newValue, for: "Catbird.parallelId")
            parallelIdBox.withLock { $0 = id }
        }
    }

    /// A client with the default session's behaviour (``Catbird/session``: 30-second request
    /// timeout; ``send(_:isolation:completion:)`` calls back on the main queue) that holds no
    /// session of its own: its calls run on one background session shared by every such client of the
    /// process (at most 64 connections to one host at once; `waitForRequest`'s long polls run on
    /// a second shared session with a pool of its own, at most 256 connections to one host, so
    /// parked waits never hold a connection another call needs), so a client costs no file
    /// descriptor and a test class may keep one per test method (XCTest makes every test-case
    /// instance before the first test runs).
    ///
    /// - Parameters:
    ///   - url: the server's base URL; ``localhost`` by default.
    ///   - parallelId: the tenant to scope every call to; nil (or `""`) for the default tenant.
    ///     Trimmed of spaces, tabs and line breaks at either end; an id that is only spaces, tabs or line breaks or
    ///     holds a control character stops the process (see ``parallelId``).
    public init(url: URL = localhost, parallelId: String? = nil) {
        self.url = url
        self.sessions = ClientSessions(given: nil)
        self.parallelIdBox = Locked(ParallelIdRule.validated(parallelId, for: "Catbird(parallelId:)"))
    }

    /// A client that runs its calls on `session`.
    ///
    /// - Parameters:
    ///   - url: the server's base URL; ``localhost`` by default.
    ///   - session: the session to use (as ``Catbird/session``, a session that delivers on the
    ///     main queue and has no delegate gets a background twin for the `async` and synchronous
    ///     forms, made on the first such call).
    ///   - parallelId: the tenant to scope every call to; nil (or `""`) for the default tenant,
    ///     as in ``init(url:parallelId:)``.
    public init(url: URL = localhost, session: URLSession, parallelId: String? = nil) {
        self.url = url
        self.sessions = ClientSessions(given: session)
        self.parallelIdBox = Locked(ParallelIdRule.validated(parallelId, for: "Catbird(parallelId:)"))
    }
}
