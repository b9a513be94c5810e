import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
#if canImport(Glibc)
import Glibc
#endif

/// An answer that did not go out whole (tester finding T13-F11: a client that read 1 KB of a
/// 35 MB mock body and closed was journaled as a complete 200). Its journal entry was written
/// before the answer was sent, so it is amended when libmicrohttpd reports the end of the
/// connection (``HTTPHandler/answerCutShort(_:tag:ending:)``): its `problem` says so, while its
/// status, headers and body stay the answer given (docs/protocol.md#what-the-journal-records).
extension CatbirdHandler {
    func answerCutShort(_ request: HTTPRequest, tag: UInt64, ending: HTTPAnswerCutShort) {
        let problem = Self.cutShortProblem(ending)
        journal.amend(JournalTicket(completionTag: tag), problem: problem)
        // Its tenant named as every request line names it (tester finding tester53a-F4).
        log.info("\(request.method) \(request.target) tenant=\(Self.tenant(of: request)): \(problem)")
    }

    /// The journal entry's `problem` of an answer cut short by `ending`. How much of the body
    /// the client received is not known when the connection ended (the kernel's buffers hold
    /// what was written last), so no byte count is given then; a file that ended early says
    /// how much of it went out.
    static func cutShortProblem(_ ending: HTTPAnswerCutShort) -> String {
        switch ending {
        case .timedOut:
            "no byte of the answer could be written to the client for the connection's idle timeout (it read nothing, or too little "
                + "to free room in the connection's send buffer), which closed the connection before the whole answer was sent"
        case let .unread(limit, true):
            "the client took none of the answer's bytes for \(limit.components.seconds) s (--head-timeout; its TCP receive window "
                + "stayed shut) while it held part of --max-buffered-bodies, so the server reset the connection before the whole answer was sent"
        case let .unread(limit, false):
            "the client took none of the answer's bytes for \(limit.components.seconds) s (--head-timeout; its TCP receive window "
                + "stayed shut), so the server reset the connection before the whole answer was sent"
        case let .unreadClosedForRoom(limit):
            "the client took none of the answer's bytes for \(limit.components.seconds) s (its TCP receive window stayed shut) while "
                + "every connection slot was taken, so the server reset the connection to make room before the whole answer was sent"
        case .serverStopped:
            "the server stopped before the whole answer was sent"
        case let .fileEndedEarly(sent, promised, errorNumber?):
            "the file could not be read while it was sent (\(String(cString: strerror(errorNumber)))): "
                + "\(sent) of its \(promised) bytes went out, then the connection was closed"
        case let .fileEndedEarly(sent, promised, nil):
            "the file shrank while it was sent: \(sent) of its \(promised) bytes went out, then the connection was closed"
        case .clientLeft:
            "the client closed the connection before the whole answer was sent"
        }
    }
}
