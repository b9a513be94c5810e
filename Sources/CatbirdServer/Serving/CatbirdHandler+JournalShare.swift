import CatbirdDomain
import CatbirdHTTP

/// Answers whose journal entry waits for its tenant's share of the journal queue
/// (``JournalWriter/appendOrHold(_:)``; docs/tenancy.md#fair-shares).
extension CatbirdHandler {
    /// The answer `response` (its mock's `hit`) of a request served on a worker, whose large
    /// journal entry is held because its tenant's large entries fill their share of the journal
    /// queue: it leaves once the writer queues the entry (tagged with the entry's ticket, and
    /// once committed with strict durability), its connection parked meanwhile, so the worker
    /// goes on serving other tenants instead of waiting for room (tester22b-F4). A client that
    /// hangs up meanwhile has its entry amended: nothing was sent.
    func answerOnceQueued(
        _ hold: JournalHold, _ response: HTTPResponse, hit: MockHit?, _ request: HTTPRequest, answeredBy: String, tenant: TenantID
    ) -> HTTPAnswer {
        .later { [self] responder in
            hold.whenQueued { [self] ticket in
                let sent = serving.appended(ticket, of: response, settling: hit)
                let record = recording(request, answeredBy: answeredBy, tenant: tenant)
                let observe: @Sendable (HTTPDelivery) -> Void = { [journal] delivery in
                    switch delivery {
                    case .sent: break
                    case .nothingSent: journal.amend(ticket, problem: Self.leftWhileHeldProblem)
                    case let .sentInstead(instead): journal.amend(ticket, problem: Self.sentInsteadProblem(instead))
                    }
                    record(delivery)
                }
                guard durability == .strict else {
                    responder.deliver(sent, beforeSending: observe)
                    return
                }
                journal.send(sent, onceCommitted: ticket, to: responder, otherwise: marked(Journal.notJournaled, refusing: request), sent: observe)
            }
        }
    }

    /// The `problem` of an answer held for its tenant's share of the journal queue whose client
    /// hung up meanwhile.
    static let leftWhileHeldProblem =
        "the client closed the connection while the answer waited for its tenant's share of the journal queue; nothing was sent"

    /// The `problem` of an answer a stopping server sent `instead` of.
    static func sentInsteadProblem(_ instead: HTTPResponse) -> String {
        "the server was stopping and sent its \(instead.status) instead; nothing of this answer was sent"
    }
}
