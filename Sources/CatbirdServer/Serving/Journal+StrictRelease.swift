import CatbirdDomain
import CatbirdHTTP

/// Strict durability's release of a journaled answer (README.md#durability): the response
/// leaves once its journal entry is committed, its connection parked meanwhile (no worker
/// waits). When the entry was dropped (after the writer's three attempts, e.g. a full disk) the
/// client gets ``notJournaled`` instead, so no client is told of a request the journal will not
/// show.
extension Journal {
    /// Sends `response` through `responder` once the entry behind `ticket` is committed
    /// (`otherwise` if it never will be: ``notJournaled``, marked as Catbird's own in place of an
    /// upstream's answer, ``Forwarding/generated(_:)-(HTTPResponse)``), telling `sent` what goes out first.
    /// The wait is one of moments (``HTTPResponder/awaitMoments()``): a stop that begins
    /// meanwhile lets the commit release the answer rather than send its 503 in its place while
    /// the row says otherwise (tester finding tester55a-F1).
    func send(
        _ response: HTTPResponse, onceCommitted ticket: JournalTicket, to responder: HTTPResponder,
        otherwise: HTTPResponse = Journal.notJournaled, sent: (@Sendable (HTTPDelivery) -> Void)? = nil
    ) {
        responder.awaitMoments()
        whenCommitted(ticket) { committed in
            responder.deliver(committed ? response : otherwise) { sent?($0) }
        }
    }

    /// ``send(_:onceCommitted:to:otherwise:sent:)`` as an answer: held, its connection parked
    /// (``HTTPAnswer/soon(_:)``), until then. The commit only releases it: `sent` (the request's
    /// metrics and log line) runs on the worker that sends it, not on the journal writer.
    func answer(
        _ response: HTTPResponse, onceCommitted ticket: JournalTicket, otherwise: HTTPResponse = Journal.notJournaled,
        sent: (@Sendable (HTTPDelivery) -> Void)? = nil
    ) -> HTTPAnswer {
        .soon(HTTPHeldAnswer(response, otherwise: otherwise, observe: sent) { [self] release in
            whenCommitted(ticket, release)
        })
    }

    /// Strict durability's answer when the journal entry could not be written (after the
    /// writer's three attempts; e.g. a full disk): 503, and the answer withheld.
    static let notJournaled = APIError(
        status: 503, reason: "the request could not be written to the journal (see the server log and "
            + "GET /catbird/api/health); with --durability strict no answer leaves unjournaled").response
}
