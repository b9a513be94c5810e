import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Foundation

/// Requests matched on the matching lane (docs/tenancy.md#slow-regular-expressions): only while
/// their client still waits, their hit counted and their journal entry written only for an
/// answer that went out.
extension CatbirdHandler {
    /// Matches `request` again, with its whole evaluation budget, on the matching lane in its
    /// tenant's turn, its connection parked meanwhile (no worker held); a request a worker
    /// found no mock for while the tables were at `missedAt` (``MockServing/OnWorker/notFoundOnLane(generation:)``)
    /// gets its 404 there without being matched again, unless a table changed since. Refused with
    /// ``APIError/slowMatchingBusy(_:)`` naming `cause` (journaled, counted) when its tenant
    /// already has ``MatchingLane/admittedPerTenant`` requests there (docs/tenancy.md#fair-shares),
    /// except such a 404, which is then answered on the worker
    /// (``MockServing/notFoundBesideLane(missedAt:_:tenant:within:refundable:)``: a burst of misses
    /// after a large table's change got 429s, tester finding try8a F9).
    ///
    /// A request that is no longer waiting when its turn comes (its client hung up, or the
    /// server answered it 503 while stopping) is not matched: it spends no limit and is
    /// journaled as the client having gone, with the time it waited (``abandonedOnLane(_:tenant:_:lane:)``).
    func matchOnMatchingLane(
        _ request: HTTPRequest, tenant: TenantID, cause: MatchingLane.Cause = .slowExpressions, missedAt generation: UInt64? = nil
    ) -> HTTPAnswer {
        guard let reservation = matchingLane.admit(tenant) else {
            var cause = cause
            if let generation {
                let beside = RequestBodyScope.reading(request.matchedBody) {
                    serving.notFoundBesideLane(
                        missedAt: generation, request, tenant: tenant, within: MatchingLane.workerSlice, refundable: true)
                }
                switch beside {
                case let .served(served): return answer(served, request, tenant: tenant)
                case let .needsLane(needed): cause = needed
                }
            }
            serving.metrics.slowMatchingRefused.add(1, ordering: .relaxed)
            return refusedForLane(.slowMatchingBusy(cause), request, tenant: tenant)
        }
        serving.metrics.slowMatchingRequests.add(1, ordering: .relaxed)
        return .later { [self] responder in
            // Not matched (nil) when the client no longer waits.
            matchingLane.run(tenant, holding: reservation) { () -> MockServing.Served? in
                guard responder.isWaiting else { return nil }
                return RequestBodyScope.reading(request.matchedBody) {
                    generation.flatMap { serving.notFound(missedAt: $0, request, tenant: tenant) }
                        ?? serving.respond(to: request, tenant: tenant, refundable: true)
                }
            } then: { (served: MockServing.Served?) in
                guard let served else { return abandonedOnLane(request, tenant: tenant, responder) }
                deliverFromLane(served, request, tenant: tenant, to: responder)
            }
        }
    }

    /// A request refused with `refusal` (a 429) because its tenant's places on a lane, or for
    /// parked requests (``ParkedRequests``), are taken (the caller counts it): logged as a warning, journaled and answered at once; marked as
    /// Catbird's own when the request would have been forwarded (``marked(_:refusing:)``).
    func refusedForLane(_ refusal: APIError, _ request: HTTPRequest, tenant: TenantID) -> HTTPAnswer {
        answer(serving.refused(refusal, request: request, tenant: tenant), request, tenant: tenant)
    }

    /// What `lane` (`matching lane`, `body lane`) served, sent through `responder`: an answer as
    /// ``deliverFromLane(_:entry:hit:_:answeredBy:tenant:lane:to:)`` says (its hit refundable), or the
    /// request forwarded.
    func deliverFromLane(
        _ served: MockServing.Served, _ request: HTTPRequest, tenant: TenantID, lane: String = "matching lane", to responder: HTTPResponder
    ) {
        switch served {
        case let .answered(response, answeredBy, entry, hit):
            deliverFromLane(response, entry: entry, hit: hit, request, answeredBy: answeredBy.rawValue, tenant: tenant, lane: lane, to: responder)
        case let .forward(destination):
            forward(request, to: destination, tenant: tenant).complete(through: responder)
        }
    }

    /// The lane's answer, sent through `responder`, with what went out logged, counted and
    /// journaled. A client that left before the answer was ready is journaled as a 499
    /// (``abandonedOnLane(_:tenant:_:lane:)``). Otherwise the entry is queued, and the answer
    /// tagged with its ticket (``MockServing/append(_:of:settling:)``), before it is sent, so an
    /// answer cut short is amended as such (``answerCutShort(_:tag:ending:)``). Relaxed
    /// durability: when nothing went out after all (the client hung up meanwhile) or the
    /// server's 503 went in its place, the entry and the hit say so as
    /// ``settleQueued(_:ticket:_:_:answeredBy:tenant:leftProblem:)`` tells.
    /// Strict durability commits the entry before the answer leaves, so the request is checked
    /// once more just before the entry is queued, and its wait becomes one of moments
    /// (``HTTPResponder/awaitMoments()``: a stop lets the commit release it); a client that
    /// leaves during the commit's few milliseconds is logged and counted as gone, but its entry
    /// and hit stand. An entry that
    /// cannot be committed gives the hit back, its answer withheld (``MockServing/settleOnceCommitted(_:_:)``).
    /// A delayed mock answer (`entry` nil) is journaled, and its hit settled or refunded, when
    /// its delay ends (``MockServing``), or here as the client having gone when it is not sent.
    private func deliverFromLane(
        _ response: HTTPResponse, entry: JournalEntry?, hit: MockHit?, _ request: HTTPRequest, answeredBy: String, tenant: TenantID,
        lane: String, to responder: HTTPResponder
    ) {
        let mocks = serving.mocks
        guard let entry else {
            let observed = response.delay.map { recordedWhenDelayEnds(response, delay: $0, request, answeredBy: answeredBy, tenant: tenant) }
            let record = recording(request, answeredBy: answeredBy, tenant: tenant)
            responder.deliver(observed ?? response) { delivery in
                guard let observed else { return record(delivery) }
                if case .sent = delivery { return }  // recorded when the delay ends
                _ = observed.whenDelayEnds?(.clientLeft(waited: ContinuousClock.now - request.receivedAt))
            }
            return
        }
        // Strict: from now on a wait of moments, before the entry is queued, so a stop that
        // begins lets the commit release the answer (tester55a-F1) or finds the request
        // abandoned here, with nothing journaled yet.
        guard stillWaitsToBeJournaled(responder) else {
            if let hit { mocks.refund(hit) }
            return abandonedOnLane(request, tenant: tenant, responder, lane: lane)
        }
        // Journaled, and tagged, before it is sent, so an answer cut short is amended as such.
        let (sent, ticket) = serving.append(entry, of: response, settling: hit)
        guard durability == .strict else {
            // Not sent after all: the entry, with its hit, is replaced while still queued, so the
            // row, and the mock's row, agree with the hit given back (they said 200 `mock`, the
            // hit written, while only memory gave it back: a restart counted it again).
            let left = Self.clientLeftOnLaneProblem(lane)
            responder.deliver(sent) { delivery in
                settleQueued(hit, ticket: ticket, delivery, request, answeredBy: answeredBy, tenant: tenant, leftProblem: left)
            }
            return
        }
        let record = recording(request, answeredBy: answeredBy, tenant: tenant)
        journal.send(sent, onceCommitted: ticket, to: responder, otherwise: marked(Journal.notJournaled, refusing: request), sent: record)
    }

    /// A request that waited on `lane` (`matching lane`, `body lane`) until it was no longer
    /// waiting: not matched; what went out instead is logged, counted and journaled (a 499 when
    /// its client hung up, the stopping server's 503).
    func abandonedOnLane(_ request: HTTPRequest, tenant: TenantID, _ responder: HTTPResponder, lane: String = "matching lane") {
        let record = recording(request, answeredBy: CatbirdRequest.AnsweredBy.unanswered.rawValue, tenant: tenant)
        responder.deliver(Self.nothingSent) { delivery in
            switch delivery {
            case .nothingSent: journal.append(clientLeftOnLaneEntry(request, tenant: tenant, lane: lane))
            case let .sentInstead(instead):
                // The stopping server's 503, sent before the lane's turn came: journaled as it
                // went out (tester finding tester55a-F2: in no journal).
                let written = Self.writtenForm(of: instead, to: request)
                let problem = "the server was stopping and sent its \(instead.status) while the request waited to be matched on the \(lane)"
                journal.append(serving.nothingSentEntry(request, tenant: tenant, status: written.status, problem: problem, written: written))
            case .sent: break
            }
            record(delivery)
        }
    }

    /// The journal entry of a request whose client hung up while it waited for, or was matched
    /// on, `lane`: 499, at its arrival's time, with the time it waited.
    private func clientLeftOnLaneEntry(_ request: HTTPRequest, tenant: TenantID, lane: String = "matching lane") -> JournalEntry {
        serving.nothingSentEntry(request, tenant: tenant, problem: Self.clientLeftOnLaneProblem(lane))
    }

    /// The `problem` of a request whose client hung up while it waited for, or was matched on,
    /// `lane` (`matching lane`, `body lane`): nothing was sent.
    private static func clientLeftOnLaneProblem(_ lane: String) -> String {
        "the client closed the connection while the request waited to be matched on the \(lane); nothing was sent"
    }
}
