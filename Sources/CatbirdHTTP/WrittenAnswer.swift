/// An answer the server wrote to a connection's socket itself, past libmicrohttpd
/// (``ServerCore/send(_:andShutDown:)``: the 408 of a slow head or a stalled body), as it went
/// out, so that the journal holds what the client got (tester finding T15B-F10: such a 408 was
/// journaled with no header fields and an empty body).
public struct WrittenAnswer: Sendable, Equatable {
    /// The status code.
    public let status: Int
    /// The header fields in the order written: those sent as given (``HTTPResponse/isSentAsGiven(_:)``),
    /// `Date` among them, then `Content-Length`.
    public let headers: HTTPHeaders
    /// The body as written.
    public let body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
