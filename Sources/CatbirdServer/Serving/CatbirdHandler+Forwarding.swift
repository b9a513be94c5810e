import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Dispatch

/// Proxy and redirect modes' forwarding (docs/files.md#redirect-and-proxy): the request sent on
/// holding no worker, the upstream's answer journaled and, in record mode, its recording placed
/// once the entry is committed.
extension CatbirdHandler {
    /// Answers later, when the upstream has (no worker waits meanwhile), and journals it. A
    /// client that hangs up meanwhile has its upstream transfer cancelled and is journaled as
    /// 499 (``deliverToGone(_:_:destination:tenant:to:)``). Its connection is parked meanwhile,
    /// holding one of its tenant's places (``ParkedRequests``): past them, a journaled 429 at once.
    func forward(_ request: HTTPRequest, to destination: Forwarding.Destination, tenant: TenantID) -> HTTPAnswer {
        guard let upstream else { return .now(APIError.notFound.response) }
        guard let place = parked.admit(tenant) else { return refusedForLane(parked.refusal(tenant), request, tenant: tenant) }
        return ParkedRequests.holding(place, forwarded(request, to: destination, tenant: tenant, by: upstream))
    }

    /// ``forward(_:to:tenant:)``'s answer once its place is taken. Its entry's `time` is when
    /// the request was matched and sent on, not when the upstream answered: the time Catbird
    /// chose the answer, as a delayed mock's (docs/protocol.md#what-the-journal-records; tester
    /// finding tester26a-F4: a 2 s upstream's entry was stamped 2 s after the request arrived).
    private func forwarded(
        _ request: HTTPRequest, to destination: Forwarding.Destination, tenant: TenantID, by upstream: UpstreamServing
    ) -> HTTPAnswer {
        let chosen = Timestamp.now()
        return .later { [serving] responder in
            upstream.forward(request, to: destination, isWanted: { responder.isWaiting }) { answer in
                // Strict: a wait of moments from before the entry is queued, so a stop that
                // begins lets the commit (and the recording's placing) release the answer, or
                // finds the request answered already and journals that (tester finding
                // tester57a-F1: with --record, the stop's 503 went out while the row said the
                // upstream's 200 and the recording was placed).
                guard stillWaitsToBeJournaled(responder) else {
                    return deliverToGone(placed(answer), request, destination: destination, tenant: tenant, chosen: chosen, to: responder)
                }
                let (sent, ticket) = serving.journal(
                    request: request, response: answer.response, responseHeadersJSON: nil,
                    answeredBy: answer.answeredBy, hit: nil, tenant: tenant, filePath: answer.recordedPath,
                    problem: answer.notRecorded, measured: answer.measured, time: chosen)
                let release: @Sendable () -> Void = {
                    deliver(
                        sent, journaled: ticket, request, answeredBy: answer.answeredBy.rawValue, tenant: tenant, to: responder,
                        otherwise: upstream.forwarding.generated(Journal.notJournaled))
                }
                guard let pending = answer.pending else { return release() }
                settle(pending, onceCommitted: ticket, request, then: release)
            }
        }
    }

    /// With `--durability strict` and `--record` (tester finding tester26a-F8): places the
    /// recording `pending` once the journal entry behind `ticket` is committed, or discards it
    /// when the entry never will be (the answer withheld, the client getting the 503 instead),
    /// with a warning; then runs `release`, which sends the answer (or the 503), so that a
    /// client that has its answer finds its recording. Off the journal writer's thread, which
    /// must not wait for the mocks directory's lock. A recording that cannot be placed after
    /// the commit is logged and the entry amended: its `problem` says so and its `filePath`, which
    /// named the planned file, is set to null (``Journal/amend(_:problem:filePath:)``). One
    /// placed at `<planned>/index` instead (the planned name became a directory meanwhile,
    /// tester finding tester28c-F1) has its `filePath` amended to that file.
    private func settle(
        _ pending: FileMockRecorder.PendingRecording, onceCommitted ticket: JournalTicket, _ request: HTTPRequest,
        then release: @escaping @Sendable () -> Void
    ) {
        journal.whenCommitted(ticket) { [journal, log] committed in
            DispatchQueue.global().async {
                if !committed {
                    pending.discard()
                    log.warning(
                        "record mode: \(request.method) \(request.target) not recorded: its journal entry could not be written, so "
                            + "--durability strict withheld the upstream's answer and sent a 503 instead (docs/files.md#recording)")
                } else {
                    switch Self.place(pending, log: log) {
                    case let .failure(error): journal.amend(ticket, problem: error.notRecordedProblem, filePath: .cleared)
                    case let .success(path) where path != pending.path: journal.amend(ticket, problem: nil, filePath: .replaced(path))
                    case .success: break
                    }
                }
                release()
            }
        }
    }

    /// `answer` with its pending recording (``UpstreamServing/Answer/pending``) placed now: for
    /// an answer whose client is gone, journaled without waiting for a commit, recorded as
    /// record mode does in every mode (docs/files.md#recording).
    private func placed(_ answer: UpstreamServing.Answer) -> UpstreamServing.Answer {
        guard let pending = answer.pending else { return answer }
        var placed = answer
        placed.pending = nil
        switch Self.place(pending, log: log) {
        case let .success(path): placed.recordedPath = path
        case let .failure(error):
            placed.recordedPath = nil
            placed.notRecorded = error.notRecordedProblem
        }
        return placed
    }

    /// Renames `pending` into place: the body file's path (``FileMockRecorder/PendingRecording/place()``),
    /// or the error, logged, when that fails.
    private static func place(_ pending: FileMockRecorder.PendingRecording, log: Logger) -> Result<String, FileMockError> {
        do throws(FileMockError) {
            return .success(try pending.place())
        } catch {
            log.warning("record mode: \(error)")
            return .failure(error)
        }
    }
}
