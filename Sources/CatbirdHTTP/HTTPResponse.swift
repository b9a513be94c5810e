import CatbirdSupport

/// A response to send. The server frames the body itself: `Content-Length` from the body's
/// length (or chunked transfer coding for a stream of unknown length); no `Content-Type` is
/// added unless present in `headers`.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int { didSet { preparedForm = nil } }
    /// Header fields to send. `Content-Length` and `Transfer-Encoding` given here are ignored:
    /// the server frames the body itself.
    public var headers: HTTPHeaders { didSet { preparedForm = nil } }
    /// Where the body comes from: bytes in memory, a region of a file, or a stream of chunks.
    public var content: Body { didSet { preparedForm = nil } }
    /// libmicrohttpd's form of the status, fields and body, when made ahead (``prepared()``);
    /// dropped whenever one of them changes.
    var preparedForm: PreparedResponse?
    /// How long to wait before sending, or nil to send at once. The wait holds no worker thread:
    /// the connection is parked and resumed by a timer.
    public var delay: Duration?
    /// Called once for a response with a ``delay``, on a worker thread: ``DelayOutcome/sent``
    /// when the delay is over (or the server stops), ``DelayOutcome/clientLeft(waited:)`` when
    /// the client hung up first: nothing is sent and its connection is closed at once.
    ///
    /// On ``DelayOutcome/sent`` it returns nil to have the response (without its delay) queued
    /// at once, or the answer to give instead, e.g. ``HTTPAnswer/soon(_:)`` to send it once
    /// something it waits for is done (no worker is held meanwhile); on
    /// ``DelayOutcome/clientLeft(waited:)`` what it returns is ignored.
    public var whenDelayEnds: (@Sendable (DelayOutcome) -> HTTPAnswer?)?
    /// The bytes of the server's body budget (``HTTPServer/Configuration/bodyBudget``) this
    /// response's body holds, e.g. a forwarded answer's: kept with its request until the
    /// response was sent (or the connection closed), then given back. Nil: none.
    public var budgetShare: ByteBudget.Share?
    /// An object kept with its request until the response was sent (or the connection closed),
    /// then let go: what the handler holds while the answer goes out (e.g. its tenant's place for
    /// a large answer, given back when released). Nil: none.
    public var heldWhileSent: (any AnyObject & Sendable)?
    /// A number the handler gives an answer it journaled (its entry's ticket), handed back by
    /// ``HTTPHandler/answerCutShort(_:tag:ending:)`` when the connection ends before the whole
    /// answer was sent; 0: none, nothing is told.
    public var completionTag: UInt64 = 0

    /// Whether this answer may be more than the kernel's socket buffers take from a client that
    /// reads nothing (a body over ``Body/copiedBytesLimit``, a file, a stream): its connection is
    /// held while it goes out, watched for a client that takes none of it (``ConnectionWatch``'s
    /// unread answers), as an answer holding part of the body budget is (tester finding
    /// tester40a-F8: clients that stopped reading a 5 MB mock answer held every slot for the
    /// 120-s idle timeout).
    public var outlastsSocketBuffers: Bool {
        switch content {
        case let .bytes(bytes): Self.outlastsSocketBuffers(bodyLength: bytes.count)
        case .file, .stream: true
        case .unframed: false
        }
    }

    /// Whether a body of `bodyLength` bytes given as bytes outlasts the socket buffers
    /// (``outlastsSocketBuffers``): more than ``Body/copiedBytesLimit`` (64 KiB). For an answer
    /// known by its body's length before it is made (a mock's shared answer).
    public static func outlastsSocketBuffers(bodyLength: Int) -> Bool { bodyLength > Body.copiedBytesLimit }

    /// How the wait of a delayed response ended.
    public enum DelayOutcome: Sendable, Equatable {
        /// The delay is over: the response is queued (or ``whenDelayEnds``'s answer given instead).
        case sent
        /// The client hung up `waited` after the request arrived; the response was not sent.
        case clientLeft(waited: Duration)
    }

    /// Where a response's body comes from.
    public enum Body: Sendable {
        /// These bytes (copied by libmicrohttpd when the response is queued).
        case bytes([UInt8])
        /// `length` bytes (nil: up to the end) of the regular file at `path` from byte `offset`,
        /// sent by libmicrohttpd from the file descriptor without reading the file into memory.
        /// The file is opened when the response is queued; if it cannot be opened, is not a
        /// regular file, or holds fewer than `offset + length` bytes, the client gets a 500.
        case file(path: String, offset: UInt64 = 0, length: UInt64? = nil)
        /// A body produced in chunks by `stream` on the worker thread as the client reads;
        /// `length` in bytes when known (sent as `Content-Length`), nil for chunked transfer
        /// coding.
        case stream(length: UInt64?, HTTPBodyStream)
        /// No body and no length: the answer to a `HEAD` whose `GET` has no known length (a
        /// forwarded one whose upstream sent no `Content-Length`), sent with neither
        /// `Content-Length` (which would say 0) nor chunked coding (libmicrohttpd 0.9.75 sends a
        /// chunked answer's last chunk after a HEAD's head): `Connection: close`, the connection
        /// closed after the head. Only for a `HEAD`.
        case unframed
    }

    /// Creates a response whose body is `body` (bytes in memory).
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], delay: Duration? = nil) {
        self.init(status: status, headers: headers, content: .bytes(body), delay: delay)
    }

    /// Creates a response whose body comes from `content`.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), content: Body, delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.content = content
        self.delay = delay
    }

    /// This response with its libmicrohttpd form made now (a copy of the body and the fields),
    /// for a response sent many times: each send then queues that one form instead of
    /// copying the body and fields again. Changing the copy's status, fields or body drops the
    /// form (it is made again per send). A response whose body is not bytes in memory is
    /// returned unchanged.
    public func prepared() -> HTTPResponse {
        var prepared = self
        prepared.preparedForm = PreparedResponse(self)
        return prepared
    }

    /// Whether a libmicrohttpd form was made for this response (``prepared()``) and is still
    /// current (for tests).
    var isPrepared: Bool { preparedForm != nil }

    /// The body bytes when the body is in memory (`.bytes`), else empty. Setting it makes the
    /// body these bytes.
    public var body: [UInt8] {
        get {
            if case let .bytes(bytes) = content { return bytes }
            return []
        }
        set { content = .bytes(newValue) }
    }
}
