import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import CatbirdWire
import Foundation

extension CatbirdHandler {
    /// Ends a forwarded request that nobody waits for any more when its upstream answer (or
    /// error, or cancellation) comes: journals what went out on the socket, not what the
    /// upstream answered (docs/files.md#redirect-and-proxy). A client that hung up gets the
    /// 499 entry of a request with no answer (``forwardingClientLeftEntry(_:_:destination:tenant:)``);
    /// a request the server answered itself in the meantime (its 503 at shutdown) is journaled
    /// with that answer, `answeredBy` `none` and a `problem` naming the destination (nothing
    /// answered is lost, docs/answering-later.md#the-guarantees), and logged as `none` too.
    /// `chosen`: when the request was sent on (``Timestamp``), the `time` of an entry with an
    /// answer, as of one the client waited for (tester finding tester26a-F4).
    func deliverToGone(
        _ answer: UpstreamServing.Answer, _ request: HTTPRequest, destination: Forwarding.Destination, tenant: TenantID,
        chosen: String, to responder: HTTPResponder
    ) {
        let record = recording(request, answeredBy: answer.answeredBy.rawValue, tenant: tenant)
        let recordInstead = recording(request, answeredBy: CatbirdRequest.AnsweredBy.unanswered.rawValue, tenant: tenant)
        responder.deliver(answer.response) { delivery in
            switch delivery {
            case .nothingSent:
                journal.append(forwardingClientLeftEntry(answer, request, destination: destination, tenant: tenant))
            case let .sentInstead(response):
                // Journaled with why (try7a F3): the row once had no problem, and the log said `redirect`.
                // The file record mode wrote meanwhile is named (tester23a-F3: it was left out).
                serving.journal(
                    request: request, response: response, responseHeadersJSON: nil, answeredBy: .unanswered, hit: nil, tenant: tenant,
                    filePath: answer.recordedPath,
                    problem: UpstreamServing.stoppingProblem(destination, status: response.status, recordedPath: answer.recordedPath),
                    time: chosen)
                return recordInstead(delivery)
            case let .sent(response):
                serving.journal(
                    request: request, response: response, responseHeadersJSON: nil, answeredBy: answer.answeredBy, hit: nil,
                    tenant: tenant, filePath: answer.recordedPath, problem: answer.notRecorded, time: chosen)
            }
            record(delivery)
        }
    }

    /// The journal entry of a forwarded request whose client hung up before the answer came:
    /// 499, no response header fields nor body, `answeredBy` `none`, `durationMs` from arrival
    /// until the server noticed (within twice ``OutboundClient/wantedCheckInterval`` of the hang-up
    /// while the transfer ran), and a `problem` naming the destination and what became of the
    /// transfer: cancelled, or the status that came too late (the upstream's, or Catbird's own
    /// 502/504). The file record mode wrote, if any, is kept as `filePath`.
    func forwardingClientLeftEntry(
        _ answer: UpstreamServing.Answer, _ request: HTTPRequest, destination: Forwarding.Destination, tenant: TenantID
    ) -> JournalEntry {
        let status = answer.response.status
        let outcome = if status == MockServing.clientLeftStatus {
            "the upstream transfer was cancelled"
        } else if Forwarding.isGenerated(answer.response) {
            "Catbird's own \(status) (\(status == 504 ? "upstream timed out" : "upstream failed")) came after it left"
        } else {
            "the upstream's answer, \(status), came after it left"
        }
        var entry = serving.nothingSentEntry(
            request, tenant: tenant,
            problem: "the client closed the connection while the request was forwarded to \(destination.shown); \(outcome); nothing was sent")
        entry.filePath = answer.recordedPath
        return entry
    }
}
