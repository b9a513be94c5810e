import CatbirdDomain
import CatbirdHTTP
import CatbirdWire
import Dispatch

/// Answers whose journal entry waits for its tenant's share of the journal queue
/// (``JournalWriter/appendOrHold(_:)``; docs/tenancy.md#fair-shares).
extension CatbirdHandler {
    /// The answer `response` (its mock's `hit`, refundable: ``respond(to:tenant:)``) of a
    /// request served on a worker, whose large journal entry is held because its tenant's large
    /// entries fill their share of the journal queue: it leaves once the writer queues the entry
    /// (tagged with the entry's ticket, and once committed with strict durability), its
    /// connection parked meanwhile, so the worker goes on serving other tenants instead of
    /// waiting for room (tester22b-F4).
    ///
    /// A client that hung up while the answer was held is treated as one that hangs up during a
    /// mock's delay (docs/protocol.md#delays; tester23c-F3): when it hangs up (as the server
    /// notices it, ``HTTPResponder/whenClientLeaves(_:)``), its entry, still held, is replaced by
    /// the 499 of a request to which nothing was sent (no response, no mock hit), and the hit is
    /// given back, so the mock's `limit` is not spent and another request may use it at once
    /// (tester25a-F11: this waited for the hold's end, and another client got the used-up
    /// mock's 404 meanwhile). A hang-up noticed once the entry is queued is settled as
    /// ``settleQueued(_:ticket:_:_:answeredBy:tenant:leftProblem:)`` tells. A stopping server's
    /// 503 sent in its place gives the hit back too (as on the matching lane). With strict
    /// durability a client that leaves during the commit that follows is amended, its hit
    /// standing, as on the lanes.
    func answerOnceQueued(
        _ hold: JournalHold, _ response: HTTPResponse, hit: MockHit?, _ request: HTTPRequest, answeredBy: String, tenant: TenantID
    ) -> HTTPAnswer {
        .later { [self] responder in
            // A hit not kept refundable stands, its row amended when written (settleQueued).
            if hit?.isRefundable ?? true {
                responder.whenClientLeaves { [self] in
                    // Off the hang-up watcher's thread: a refund may delete a mock's row.
                    DispatchQueue.global().async { [self] in
                        let left = serving.nothingSentEntry(request, tenant: tenant, problem: Self.leftWhileHeldProblem)
                        guard journal.replaceHeld(hold, with: left) else { return }
                        if let hit { serving.mocks.refund(hit) }
                        responder.deliver(response, beforeSending: recording(request, answeredBy: answeredBy, tenant: tenant))
                    }
                }
            }
            hold.whenQueued { [self] ticket in
                // Its client left while it was held: settled then, its 499 queued in its place.
                guard !hold.isReplaced else { return }
                // Relaxed: sent at once. Either durability, a request no longer waiting (its client
                // left, or the stopping server answered it): nothing can be sent (no longer waiting
                // is final), so its entry is settled now rather than after a commit. Strict and
                // waiting: a wait of moments from now on, which a stop lets the commit release
                // (tester55a-F1: the stop's 503 went out while the row said the mock's 201).
                guard durability == .strict && responder.awaitMoments() else {
                    let sent = serving.appended(ticket, of: response, settling: nil)
                    responder.deliver(sent) { delivery in
                        settleQueued(hit, ticket: ticket, delivery, request, answeredBy: answeredBy, tenant: tenant, leftProblem: Self.leftWhileHeldProblem)
                    }
                    return
                }
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
                journal.send(sent, onceCommitted: ticket, to: responder, otherwise: marked(Journal.notJournaled, refusing: request), sent: observe)
            }
        }
    }

    /// Whether a mock hit for `request` is kept refundable with relaxed durability (always), and
    /// else from which response body size (bytes) it is: only an answer whose journal entry is
    /// ``JournalWriter/largeEntryBytes`` (8 KiB) or more can be held for its tenant's share, so
    /// only such a hit may have to be given back (a client that hangs up while held). Keeping every
    /// hit refundable cost the one-mock hit 15-18 % of its rate (`Benchmarks/miss-ab.sh`, 3
    /// rounds: a tenant lock and a table look-up more per hit). Estimated from above: the target
    /// and header fields counted twice (JSON escapes), the body whole, and 2 KiB for the
    /// response's header fields; a hit whose entry is larger than estimated stands
    /// (``settleQueued(_:ticket:_:_:answeredBy:tenant:leftProblem:)``).
    static func refundability(_ request: HTTPRequest) -> (Bool, Int) {
        var bytes = request.target.utf8.count * 2 + request.body.count + 2048
        for field in request.headers.fields { bytes += (field.name.utf8.count + field.value.utf8.count + 6) * 2 }
        let fromBody = JournalWriter.largeEntryBytes - bytes
        return fromBody <= 0 ? (true, .max) : (false, fromBody)
    }

    /// The `problem` of an answer held for its tenant's share of the journal queue whose client
    /// hung up meanwhile.
    static let leftWhileHeldProblem =
        "the client closed the connection while the answer waited for its tenant's share of the journal queue; nothing was sent"

}
