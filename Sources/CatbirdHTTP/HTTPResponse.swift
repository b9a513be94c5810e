/// A response to send. `Content-Length` is always added by the server from `body`; no
/// `Content-Type` is added unless present in `headers`.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields to send. `Content-Length` and `Transfer-Encoding` given here are ignored:
    /// the server frames the body itself.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]
    /// How long to wait before sending, or nil to send at once. The wait holds no worker thread:
    /// the connection is suspended and resumed by a timer.
    public var delay: Duration?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }
}
