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
/// tenant (test shard): its mocks, its journal, its SQL rows. The id is trimmed of whitespace
/// and line breaks at either end, and one holding a control character is refused where it is
/// given (see ``parallelId``).
///
/// Calls come in three forms: a completion handler (``send(_:completion:)``, as in
/// Catbird 0.11, called back on the session's delegate queue), `async` (macOS 10.15 / iOS 13
/// and later; cancelling the task cancels the request), and synchronous `throws`, which
/// blocks the calling thread until the answer arrives or the session's request timeout
/// passes. The `async` and synchronous forms never wait for the main queue: when ``session``
/// delivers its callbacks there (as the default session does) and has no delegate, they run
/// on a private twin of it (same configuration) that delivers on a background queue, so a
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
/// it answers with a non-2xx status, `DecodingError` when an answer is not the expected JSON.
///
/// Thread safety: a `Catbird` may be shared between threads and tasks; ``parallelId`` is read
/// once per call.
public final class Catbird: @unchecked Sendable {
    // @unchecked Sendable: every stored property but the parallel id and the admin token is
    // immutable (`let`; URLSession is thread-safe by contract), and the only mutable state, the
    // parallel id and the admin token, lives in `Locked` boxes whose every access takes the lock.

    /// `http://127.0.0.1:8080`, the server's default address.
    public static let localhost = URL(string: "http://127.0.0.1:8080")!

    /// A new default session on every access, as in Catbird 0.11: ephemeral configuration,
    /// 5-second request timeout, callbacks on the main queue (``send(_:completion:)`` calls back
    /// there, while the `async` and synchronous forms run on a background-delivery twin).
    /// Because each access makes a new one, a test that calls `invalidateAndCancel()` on the
    /// session it got (0.11's own tests did, in tear-down) leaves every other client working.
    public static var session: URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 5
        let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: .main)
        session.sessionDescription = "Catbird session"
        return session
    }

    /// The server's base URL, such as `http://127.0.0.1:8080`. A path is kept and the API's
    /// paths go below it (`http://host/prefix/catbird/api/mocks`).
    public let url: URL

    /// The session every call uses (or, for the `async` and synchronous forms when it delivers
    /// on the main queue, a twin with its configuration; see ``Catbird``).
    public let session: URLSession

    /// The session the `async` and synchronous forms run on: ``session``, or its background
    /// twin when ``session`` delivers on the main queue and has no delegate.
    let performSession: URLSession

    /// How long a synchronous call waits before throwing `URLError(.timedOut)`; nil to wait
    /// for the answer (the request timeout ends every request). Set for a caller-supplied
    /// session that delivers on the main queue, whose answer may never come to a waiting
    /// main thread.
    let syncDeadline: TimeInterval?

    /// Whether ``performSession`` was made for this client (and is invalidated with it).
    private let ownsPerformSession: Bool

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
    /// (`CatbirdAppConfiguration`) and the server share: whitespace and line breaks at either end
    /// are dropped (`" shard-1 "` and `"shard-1\n"` read back as `shard-1`, the tenant the server
    /// files them under). An id that is only whitespace, or that still holds a control character
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

    /// A client.
    ///
    /// - Parameters:
    ///   - url: the server's base URL; ``localhost`` by default.
    ///   - session: the session to use; ``session`` by default.
    ///   - parallelId: the tenant to scope every call to; nil (or `""`) for the default tenant.
    ///     Trimmed of whitespace and line breaks at either end; an id that is only whitespace or
    ///     holds a control character stops the process (see ``parallelId``).
    public init(url: URL = localhost, session: URLSession = session, parallelId: String? = nil) {
        self.url = url
        self.session = session
        self.parallelIdBox = Locked(ParallelIdRule.validated(parallelId, for: "Catbird(parallelId:)"))
        let mainQueue = Self.deliversOnMainQueue(session)
        if mainQueue, session.delegate == nil {
            performSession = Self.backgroundTwin(of: session)
            ownsPerformSession = true
            syncDeadline = nil
        } else {
            performSession = session
            ownsPerformSession = false
            syncDeadline = mainQueue ? session.configuration.timeoutIntervalForRequest + Self.syncDeadlineMargin : nil
        }
    }

    deinit {
        if ownsPerformSession { performSession.finishTasksAndInvalidate() }
    }

    /// What a synchronous call's deadline adds to the request timeout, in seconds.
    private static let syncDeadlineMargin: TimeInterval = 5

    /// A session with `session`'s configuration and description, without a delegate, that
    /// delivers on a background queue.
    private static func backgroundTwin(of session: URLSession) -> URLSession {
        let twin = URLSession(configuration: session.configuration, delegate: nil, delegateQueue: nil)
        twin.sessionDescription = session.sessionDescription
        return twin
    }

    /// Whether `session`'s callbacks run on the main thread: its delegate queue is the main
    /// operation queue, or a queue whose underlying dispatch queue is the main queue.
    private static func deliversOnMainQueue(_ session: URLSession) -> Bool {
        let queue = session.delegateQueue
        return queue === OperationQueue.main || queue.underlyingQueue.map { $0.label == DispatchQueue.main.label } == true
    }
}
