import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sessions one client runs its calls on, made so that a client costs no file descriptors
/// until it is used (tester finding T18C-F9: a URLSession holds two on Linux, and XCTest makes
/// every test-case instance, with its stored client, before the first test runs).
///
/// A client made without a session runs every call on ``shared``, one background-delivery
/// session for the whole process; its ``session`` (a new `Catbird.session`) is made on first
/// access only. A client given a session that delivers on the main queue and has no delegate
/// runs its `async` and synchronous calls on a background twin, made on the first such call.
final class ClientSessions: @unchecked Sendable {
    // @unchecked Sendable: `given` and the flags are immutable; the lazily made sessions live in
    // `Locked` boxes whose every access takes the lock (URLSession is thread-safe by contract).

    /// The session given to the client's initializer; nil for the default.
    private let given: URLSession?

    /// The default client's own `Catbird.session`, made when ``session`` is first read.
    private let made = Locked<SessionBox?>(nil)

    /// The background twin of ``given``, made on the first `async` or synchronous call.
    private let twin = Locked<SessionBox?>(nil)

    /// Whether ``given`` delivers on the main queue and has no delegate (so calls that wait run
    /// on a twin).
    private let needsTwin: Bool

    /// How long a synchronous call waits before throwing `URLError(.timedOut)`; nil to wait for
    /// the answer. Set for a given session that delivers on the main queue and has a delegate,
    /// whose answer may never come to a waiting main thread.
    let syncDeadline: TimeInterval?

    /// What a synchronous call's deadline adds to the request timeout, in seconds.
    private static let syncDeadlineMargin: TimeInterval = 5

    /// Most connections the shared session opens to one host at once. Every default client of
    /// the process shares it, so it allows more than URLSession's default of 6, which would
    /// queue a seventh concurrent `waitForRequest` behind six long polls.
    static let sharedConnectionsPerHost = 64

    /// The session of every client made without one: `Catbird.session`'s configuration (30-second
    /// request timeout, ephemeral), callbacks on a background queue.
    static let shared: URLSession = {
        let configuration = Catbird.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = sharedConnectionsPerHost
        let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
        session.sessionDescription = Catbird.defaultSessionDescription
        return session
    }()

    /// Most connections ``sharedWaits`` opens to one host at once: a long poll holds its
    /// connection until the server answers, so the waits of a process get their own pool.
    static let sharedWaitConnectionsPerHost = 256

    /// The session of every long poll (`waitForRequest`) of a client made without a session:
    /// as ``shared``, with a pool of its own, so that parked waits never hold the connections
    /// every other call of the process needs (tester finding tester22a-F18: 64 parked waits
    /// filled ``shared``'s 64 and every other call timed out after 5 seconds in its queue).
    static let sharedWaits: URLSession = {
        let configuration = Catbird.defaultConfiguration()
        configuration.httpMaximumConnectionsPerHost = sharedWaitConnectionsPerHost
        let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
        session.sessionDescription = Catbird.defaultSessionDescription + " (waits)"
        return session
    }()

    /// The sessions of a client; `session` nil for the default.
    init(given session: URLSession?) {
        given = session
        guard let session else {
            needsTwin = false
            syncDeadline = nil
            return
        }
        let mainQueue = Self.deliversOnMainQueue(session)
        needsTwin = mainQueue && session.delegate == nil
        syncDeadline = mainQueue && !needsTwin ? session.configuration.timeoutIntervalForRequest + Self.syncDeadlineMargin : nil
    }

    deinit {
        twin.current?.session.finishTasksAndInvalidate()
    }

    /// Whether the client was made without a session (its completion closures are then handed
    /// to the main queue, where `Catbird.session` would deliver them).
    var isDefault: Bool { given == nil }

    /// The client's public session: the given one, or the default client's own
    /// `Catbird.session`, made on first access.
    var session: URLSession {
        if let given { return given }
        return made.withLock { box in
            if let box { return box.session }
            let session = Catbird.session
            box = SessionBox(session: session)
            return session
        }
    }

    /// The session `send(_:completion:)` runs on: the given one, or ``shared``.
    var completionSession: URLSession {
        given ?? Self.shared
    }

    /// The session the `async` and synchronous forms run on: ``shared`` for the default client,
    /// the given session's background twin when it delivers on the main queue without a
    /// delegate, else the given session.
    var performSession: URLSession { performSession(longPoll: false) }

    /// The session a call runs on in the `async` and synchronous forms: as ``performSession``,
    /// except that a long poll of the default client runs on ``sharedWaits``.
    func performSession(longPoll: Bool) -> URLSession {
        guard let given else { return longPoll ? Self.sharedWaits : Self.shared }
        guard needsTwin else { return given }
        return twin.withLock { box in
            if let box { return box.session }
            let made = URLSession(configuration: given.configuration, delegate: nil, delegateQueue: nil)
            made.sessionDescription = given.sessionDescription
            box = SessionBox(session: made)
            return made
        }
    }

    /// Whether `session`'s callbacks run on the main thread: its delegate queue is the main
    /// operation queue, or a queue whose underlying dispatch queue is the main queue.
    private static func deliversOnMainQueue(_ session: URLSession) -> Bool {
        let queue = session.delegateQueue
        return queue === OperationQueue.main || queue.underlyingQueue.map { $0.label == DispatchQueue.main.label } == true
    }
}

/// A session in a `Locked` box.
private struct SessionBox: @unchecked Sendable {
    // @unchecked Sendable: URLSession is documented thread-safe, though not marked Sendable on
    // every platform; this value only ever lives inside a `Locked` box.
    let session: URLSession
}
