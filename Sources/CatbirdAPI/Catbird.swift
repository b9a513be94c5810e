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
/// Every call carries `X-Catbird-Parallel-Id: <parallelId>` when ``parallelId`` is set, so it
/// sees and changes only that tenant (test shard): its mocks, its journal, its SQL rows.
///
/// Calls come in three forms: a completion handler (``send(_:completion:)``, as in
/// Catbird 0.11), `async` (macOS 10.15 / iOS 13 and later; cancelling the task cancels the
/// request), and synchronous `throws`. The synchronous forms block the calling thread until
/// the answer arrives or the session's request timeout passes. On the main thread, with a
/// session that delivers its callbacks on the main queue (as ``session`` does), they run the
/// current run loop meanwhile instead of blocking it, so they do not deadlock (other
/// main-queue work may run during the wait). Do not call them from the session's own delegate
/// queue when that is a serial background queue, nor from a background thread while the main
/// thread waits for that thread and the session delivers on the main queue: the answer could
/// never be delivered.
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
    // @unchecked Sendable: `url` and `session` are immutable (`let`; URLSession is thread-safe
    // by contract), and the only mutable state, the parallel id, lives in a `Locked` box whose
    // every access takes its lock.

    /// `http://127.0.0.1:8080`, the server's default address.
    public static let localhost = URL(string: "http://127.0.0.1:8080")!

    /// The default session: ephemeral configuration, 5-second request timeout, callbacks on
    /// the main queue (as in Catbird 0.11). The same instance on every access.
    public static var session: URLSession { defaultSession }

    private static let defaultSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 5
        let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: .main)
        session.sessionDescription = "Catbird"
        return session
    }()

    /// The server's base URL, such as `http://127.0.0.1:8080`. A path is kept and the API's
    /// paths go below it (`http://host/prefix/catbird/api/mocks`).
    public let url: URL

    /// The session every call uses.
    public let session: URLSession

    private let parallelIdBox: Locked<String?>

    /// The tenant (test shard) every call is scoped to, sent as `X-Catbird-Parallel-Id`; nil
    /// for the server's default tenant (no header). An empty string also means the default
    /// tenant to the server.
    public var parallelId: String? {
        get { parallelIdBox.current }
        set { parallelIdBox.withLock { $0 = newValue } }
    }

    /// A client.
    ///
    /// - Parameters:
    ///   - url: the server's base URL; ``localhost`` by default.
    ///   - session: the session to use; ``session`` by default.
    ///   - parallelId: the tenant to scope every call to; nil for the default tenant.
    public init(url: URL = localhost, session: URLSession = session, parallelId: String? = nil) {
        self.url = url
        self.session = session
        self.parallelIdBox = Locked(parallelId)
    }
}
