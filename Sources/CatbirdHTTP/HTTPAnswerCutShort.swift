/// How an answer the handler gave did not go out whole, told to
/// ``HTTPHandler/answerCutShort(_:tag:ending:)`` for an answer queued with a
/// ``HTTPResponse/completionTag``. An answered request's ending; an unanswered one's is an
/// ``HTTPRequestEnding``.
public enum HTTPAnswerCutShort: Sendable, Equatable {
    /// The client closed or reset the connection, or writing to it failed, before the last byte
    /// was handed to the socket.
    case clientLeft
    /// The client read nothing for the connection's idle timeout, which closed it.
    case timedOut
    /// The answer was larger than a socket's buffers take (or held part of the server's body
    /// budget, ``HTTPResponse/budgetShare``: `heldBudget`) and its client took none of its bytes
    /// for `limit` (the head deadline), so the server closed the connection
    /// (``ConnectionWatch``'s unread answers).
    case unread(limit: Duration, heldBudget: Bool)
    /// Every connection slot was taken and the answer's client had taken none of its bytes for
    /// `limit` (``ConnectionWatch/unreadAnswerRoomAge``), so the server closed the connection to
    /// make room for new clients (tester finding tester40a-F8).
    case unreadClosedForRoom(limit: Duration)
    /// The server stopped before the whole answer was sent.
    case serverStopped
    /// A file answer's body ended before the length its head announced, and the connection was
    /// closed: its file shrank while it was sent (`errorNumber` nil) or could not be read
    /// (`errno`), after `sent` of its `promised` bytes (tester finding tester20a-F6: such an
    /// answer was journaled as a whole 200 with no `problem`).
    case fileEndedEarly(sent: UInt64, promised: UInt64, errorNumber: Int32?)
}
