import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Foundation

/// The journal entry of a request to which nothing was sent: its client hung up (during a
/// mock's delay, on the matching lane, while it was forwarded, or before it was read whole), or
/// its connection timed out before it was complete (docs/protocol.md#delays,
/// docs/protocol.md#malformed-requests). The one shape all of them are journaled with.
extension MockServing {
    /// The status journaled for a request whose client hung up before an answer was sent:
    /// nothing was sent; 499 is nginx's "client closed request" in access logs.
    static let clientLeftStatus = 499
    /// The status journaled for a request whose connection timed out before it was complete:
    /// nothing was sent; 408 (Request Timeout) is what nginx logs in that case.
    static let clientTimedOutStatus = 408

    /// `request`'s entry with `status` (``clientLeftStatus`` or ``clientTimedOutStatus``), no
    /// response header fields nor body, no mock hit, `waited` as its duration, and `problem`
    /// saying what happened; `time` and `requestHeaders` (the request's header fields as the
    /// journal's JSON, admin token redacted) as the caller journals them.
    /// - Parameter written: the answer the server wrote itself past libmicrohttpd as the
    ///   connection closed (the 408 of a slow head or a stalled body), as it went out: its
    ///   status, header fields and body are the entry's (tester finding T15B-F10: the 408 was
    ///   journaled with no header fields and an empty body).
    static func nothingSentEntry(
        request: HTTPRequest, tenant: TenantID, status: Int, time: String, requestHeaders: String, waited: Duration,
        problem: String, written: WrittenAnswer? = nil
    ) -> JournalEntry {
        JournalEntry(
            time: time, tenant: tenant, method: request.method, url: request.target,
            requestHeaders: requestHeaders, requestBody: request.body, status: written?.status ?? status,
            responseHeaders: written.map { JSONText.object($0.headers.fields) } ?? "{}", responseBody: written?.body ?? [],
            answeredBy: .unanswered, mockHit: nil, durationMs: waited.milliseconds, problem: problem)
    }

    /// ``nothingSentEntry(request:tenant:status:time:requestHeaders:waited:problem:written:)`` at the
    /// request's arrival time, with the time from its arrival until now as its duration.
    func nothingSentEntry(
        _ request: HTTPRequest, tenant: TenantID, status: Int = clientLeftStatus, problem: String, written: WrittenAnswer? = nil
    ) -> JournalEntry {
        let waited = ContinuousClock.now - request.receivedAt
        return Self.nothingSentEntry(
            request: request, tenant: tenant, status: status, time: Timestamp.string(from: Date(timeIntervalSinceNow: -waited.milliseconds / 1000)),
            requestHeaders: JSONText.object(admin.redactingToken(in: request.headers.fields)), waited: waited, problem: problem,
            written: written)
    }
}
