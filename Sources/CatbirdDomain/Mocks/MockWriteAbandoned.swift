import CatbirdSupport

/// A mock body's write in pieces given up because the server is stopping
/// (``MockStore/abandonWrites()``): checked before each piece and before the row, so no row
/// was committed and nothing changed; the pieces written are left to the sweep, at the latest
/// at the next start (tester finding tester24a-F1: the update was answered 503 and committed).
/// Answered as the stopping server's own 503, `the server is stopping`, which here is true.
public struct MockWriteAbandoned: ServerBusyError, Sendable, Equatable {
    public init() {}

    /// 503: retrying once the server is back helps.
    public var status: Int { 503 }

    /// `the server is stopping`, the stopping server's own reason.
    public var reason: String { "the server is stopping" }
}
