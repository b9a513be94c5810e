import CatbirdDomain
import CatbirdHTTP
import CatbirdWire

/// Answers whose journal entry is queued before they are sent (relaxed durability): on the
/// matching and body lanes, and answers held for their tenant's share of the journal queue.
/// What went out decides what the entry and the mock's hit say, the same way for all of them,
/// so the row, the mock's `hits` and `remaining_limit` in memory and in the database agree
/// (after a restart too).
extension CatbirdHandler {
    /// What `delivery` of an answer whose entry is behind `ticket` (queued, carrying `hit`:
    /// refundable, ``MockStore/refund(_:)``) means for that hit and entry, then records what
    /// went out:
    /// - sent: the hit stands (``MockStore/settle(_:)``);
    /// - nothing sent (the client hung up): the entry, while still queued (not taken for a
    ///   round), becomes the 499 of a request to which nothing was sent, `leftProblem` its
    ///   `problem`, with no hit, and the hit is given back; a dropped entry's hit is given back
    ///   with strict durability (which holds no hit of a dropped row); else (written already, or
    ///   dropped with its hit held for a later round) the hit stands and the entry is amended
    ///   with `leftProblem`, as its row says;
    /// - the stopping server's 503 instead: in the same way the entry becomes that 503 as it
    ///   went out (``writtenForm(of:to:)``), `answeredBy` `none`, and the hit is given back, or
    ///   the hit stands and the entry is amended.
    ///
    /// A hit not kept refundable (its entry's size was underestimated, ``refundability(_:)``)
    /// stands: its row is amended, not replaced by one its hit would contradict.
    func settleQueued(
        _ hit: MockHit?, ticket: JournalTicket, _ delivery: HTTPDelivery, _ request: HTTPRequest, answeredBy: String,
        tenant: TenantID, leftProblem: String
    ) {
        let mocks = serving.mocks
        let replacement: JournalEntry
        let problem: String
        switch delivery {
        case .sent:
            if let hit { mocks.settle(hit) }
            return recording(request, answeredBy: answeredBy, tenant: tenant)(delivery)
        case .nothingSent:
            problem = leftProblem
            replacement = serving.nothingSentEntry(request, tenant: tenant, problem: problem)
        case let .sentInstead(instead):
            // tester25a-F3: the row said 200 `mock` with the mock's body, and its hit was
            // written, while the client got the stop's 503.
            problem = Self.sentInsteadProblem(instead)
            let written = Self.writtenForm(of: instead, to: request)
            replacement = serving.nothingSentEntry(request, tenant: tenant, status: written.status, problem: problem, written: written)
        }
        if hit?.isRefundable ?? true, journal.replaceQueued(ticket, with: replacement) {
            if let hit { mocks.refund(hit) }
        } else if ticket.completionTag == 0 && durability == .strict {  // dropped
            if let hit { mocks.refund(hit) }
        } else {
            if let hit { mocks.settle(hit) }
            journal.amend(ticket, problem: problem)
        }
        let recorded = if case .sentInstead = delivery { CatbirdRequest.AnsweredBy.unanswered.rawValue } else { answeredBy }
        recording(request, answeredBy: recorded, tenant: tenant)(delivery)
    }

    /// `response`, a stopping server's answer sent in place of another to `request`, as it went
    /// out: ``HTTPResponse/stamped(date:)``'s fields, then those libmicrohttpd adds
    /// (``HTTPResponse/fieldsAddedOnSending(to:fileLength:)``: its `Content-Length`), and its body.
    static func writtenForm(of response: HTTPResponse, to request: HTTPRequest) -> WrittenAnswer {
        let stamped = response.stamped()
        var body: [UInt8] = []
        if case let .bytes(bytes) = stamped.content { body = bytes }
        return WrittenAnswer(
            status: stamped.status, headers: HTTPHeaders(stamped.headers.fields + stamped.fieldsAddedOnSending(to: request)), body: body)
    }

    /// The `problem` of an answer a stopping server sent `instead` of.
    static func sentInsteadProblem(_ instead: HTTPResponse) -> String {
        "the server was stopping and sent its \(instead.status) instead; nothing of this answer was sent"
    }
}
