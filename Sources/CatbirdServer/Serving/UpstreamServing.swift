import CatbirdDomain
import CatbirdHTTP
import CatbirdOutbound
import CatbirdSupport
import CatbirdWire

/// Sends a request no mock or file answered to the upstream (redirect or proxy mode), and in
/// record mode writes the exchange as a file mock (`docs/files.md#recording`). Holds no thread
/// while the upstream works: `completion` is called later, from the outbound client's queue.
struct UpstreamServing: Sendable {
    let forwarding: Forwarding
    let client: OutboundClient
    /// Record mode's writer; nil when not recording.
    let recorder: FileMockRecorder?
    /// `--cors`: the answer goes out with CORS fields for an allowed origin (``CORS``), counted
    /// when its head is measured before recording; nil when off.
    let cors: CORS?
    /// `--durability strict`: a recording is staged, and placed only once the answer's journal
    /// entry is committed (``Answer/pending``; tester finding tester26a-F8).
    var recordsOnceJournaled = false
    /// Keeps the admin token from the upstream (``AdminAccess/removingToken(from:)``).
    let admin: AdminAccess
    let log: Logger

    /// What the upstream answered, as ours, with what the journal needs.
    struct Answer: Sendable {
        var response: HTTPResponse
        var answeredBy: CatbirdRequest.AnsweredBy
        /// The file written in record mode (with ``pending``, the file it will be), or nil.
        var recordedPath: String?
        /// With ``UpstreamServing/recordsOnceJournaled``: the recording, written under temporary
        /// names, to place once the journal entry is committed, or discard when it is not (the
        /// answer withheld: tester finding tester26a-F8). Nil otherwise.
        var pending: FileMockRecorder.PendingRecording? = nil
        /// The journal entry's `problem`: why record mode did not write this answer
        /// (``FileMockError/notRecordedProblem``), or why the upstream's answer was replaced
        /// (``unsendableStatus(_:)``), or that the server stopped while it was forwarded
        /// (``stoppingProblem(_:status:)``); nil when none.
        var notRecorded: String? = nil
        /// `response` as it goes out to the request and its head's size, when record mode
        /// measured it before writing it: the journal's head check reuses it. Nil: not measured.
        var measured: OversizedHead.Measured? = nil
    }

    /// Why record mode leaves an exchange unrecorded by rule, or nil when it writes it: a `HEAD`
    /// (no body: it would replace the `GET`'s recording with an empty one), a `304 Not Modified`,
    /// `206 Partial Content` or `416 Range Not Satisfiable` (answers to the client's cache and
    /// range, not the resource), a `412 Precondition Failed` to a conditional request, a
    /// redirect to a target naming the same file mock (``slashRedirect(_:_:includesQuery:)``), an
    /// answer a Catbird made itself (``Forwarding/isGenerated(_:)``: its own 508 after a loop,
    /// another Catbird's 502). The journal entry's `problem` (`not recorded: ` first); neither
    /// logged nor counted in `catbird_recordings_failed_total`: nothing failed (tester finding
    /// tester20a-F11.12: a player that always sends `Range` recorded nothing, and nothing said why).
    /// A 304 or 206 to a request that asked for none (no `If-None-Match`/`If-Modified-Since`,
    /// no `Range`) says the backend sent it on its own, rather than advising to drop fields the
    /// request does not have (tester finding tester29d-F1).
    /// `basePath`: the redirect URL's path (`/v1` of `http://up/v1`) when the request was
    /// forwarded there, under which the backend's `Location` names the request's own target.
    static func skippedByRule(_ request: HTTPRequest, _ response: HTTPResponse, includesQuery: Bool, basePath: String = "") -> String? {
        let why: String
        let asked = { (names: [String]) in names.contains { request.headers.first($0) != nil } }
        if request.method == "HEAD" {
            why = "a HEAD's answer has no body; it would empty the GET's recording"
        } else if response.status == 304 {
            why = asked(["If-None-Match", "If-Modified-Since"])
                ? "a 304 answers the client's cache, not the resource; send the request without If-None-Match or If-Modified-Since to record it"
                : "a 304 answers a cache, not the resource, and the backend sent it to a request without If-None-Match or "
                    + "If-Modified-Since (it answers 304 on its own)"
        } else if response.status == 206 {
            why = asked(["Range"])
                ? "a 206 answers the client's byte range, not the resource; send the request without Range to record it"
                : "a 206 answers a byte range, not the resource, and the backend sent it to a request without Range (it "
                    + "answers 206 on its own)"
        } else if response.status == 416 {
            // Tester finding tester44a-F5: a 416 to `Range: bytes=100-` of a 100-byte clip
            // replaced the clip's 200, and replay answered every request 416.
            why = asked(["Range"])
                ? "a 416 answers the client's byte range (no byte of it is in the resource), not the resource; send the request "
                    + "without Range to record it (replay answers such a range with 416 itself, docs/files.md#byte-ranges)"
                : "a 416 answers a byte range, not the resource, and the backend sent it to a request without Range (it answers "
                    + "416 on its own)"
        } else if response.status == 412, asked(["If-Match", "If-Unmodified-Since", "If-None-Match", "If-Modified-Since"]) {
            why = "a 412 answers the client's precondition (If-Match, If-Unmodified-Since, …), not the resource; send the request "
                + "without them to record it"
        } else if let loop = slashRedirect(request, response, includesQuery: includesQuery, basePath: basePath) {
            why = loop
        } else if Forwarding.isGenerated(response) {
            why = "the answer was made by a Catbird (\(Forwarding.generatedByHeader)), not by the backend"
        } else {
            return nil
        }
        return "not recorded: " + why + " (docs/files.md#recording)"
    }

    /// Why an upstream status cannot be passed on, or nil when it can: a final answer's status is
    /// 200–599 (RFC 9110 section 15: a 1xx is interim, and no class above 5 exists); libcurl
    /// hands over any three digits (`HTTP/1.1 999 Weird`), which clients refuse or misread. Such
    /// an answer is replaced by a JSON 502 with this reason (docs/files.md#redirect-and-proxy),
    /// which the journal entry's `problem` also holds (``problem(_:recording:)``).
    static func unsendableStatus(_ status: Int) -> String? {
        guard !(200...599).contains(status) else { return nil }
        return "the upstream answered with status \(status), which is no final HTTP status (200-599, RFC 9110 section 15): "
            + "answered 502 in its place"
    }

    /// Why an upstream's answer cannot be passed on, or nil when it can: a status that is no
    /// final one (``unsendableStatus(_:)``), or `Content-Length` values that differ
    /// (two fields, or a list, `2` and `5`), where a proxy "MUST" discard the answer and answer
    /// 502 (RFC 9112 section 6.3, item 5; tester finding T14-F5: libcurl picked one and the
    /// answer was passed on and recorded). Replaced like the status: a JSON 502 marked as
    /// Catbird's own, with this reason, also the entry's `problem` (``problem(_:recording:)``);
    /// nothing recorded.
    static func unsendable(_ upstream: OutboundResponse) -> String? {
        if let reason = unsendableStatus(upstream.status) { return reason }
        let announced = upstream.announcedLength
        guard announced.differs else { return nil }
        return "the upstream's answer has Content-Length values that differ ("
            + announced.values.map { JSONText.shortString($0) }.joined(separator: ", ")
            + "), so where its body ends is ambiguous (RFC 9112 section 6.3): answered 502 in its place"
    }

    /// Why a replay of `response`'s recording could not serve it to the very same request, or
    /// nil when it could: a file answer adds an `ETag` and `Accept-Ranges: bytes` the live answer
    /// may not have had (``FileServing/headers(of:)``), which can take its head past the room
    /// left beside `request`'s head (docs/protocol.md#response-head-size). Measured as the live
    /// answer is (``OversizedHead/Outgoing``), with the sidecar's fields and the longest tag a
    /// file of this size can get. Tester finding tester26a-F6: an answer whose head just fit live
    /// was recorded and replayed as a 500; docs/files.md#recording: "an answer replay could not
    /// serve as received is not recorded".
    static func replayHeadProblem(_ response: HTTPResponse, to request: HTTPRequest, cors: CORS?) -> String? {
        let fields = FileMockRecorder.sidecarFields(response.headers.fields)
        let length = response.body.count
        let mock = FileMock(
            path: "", size: length, status: response.status, headers: fields,
            entityTag: FileMock.entityTag(headers: fields, size: length, modified: FileMock.latestModified))
        let replay = HTTPResponse(status: mock.status, headers: FileServing.headers(of: mock), body: response.body)
        let headSize = OversizedHead.Outgoing(replay, to: request, cors: cors).headSize
        guard headSize > request.responseHeadRoom else { return nil }
        return OversizedHead.problem(
            source: "a file mock of this answer (with the ETag and Accept-Ranges a file answer adds)", size: headSize,
            room: request.responseHeadRoom)
    }

    /// The journal entry's `problem` for `reason`, why Catbird answered 502 in place of the
    /// upstream's answer: the reason itself, `not recorded: ` first in record mode (`recording`),
    /// which then records nothing (counted in `catbird_recordings_failed_total`). Only the
    /// journal says `not recorded`: the client's 502 carries `reason` as in any other mode
    /// (docs/files.md#recording; tester finding tester26a-F7: record mode's 502 for a status
    /// 600 said `not recorded: the upstream answered with status 600, …` to the client).
    static func problem(_ reason: String, recording: Bool) -> String {
        (recording ? "not recorded: " : "") + reason
    }

    /// The journal entry's `problem` of a forwarded request that the server answered itself
    /// with `status` (503) because it was stopping (docs/answering-later.md#the-guarantees);
    /// `recordedPath`: the file record mode wrote the upstream's answer to all the same (it came
    /// while the stop sent the 503; tester finding tester23a-F3: the entry said only "not sent").
    static func stoppingProblem(_ destination: Forwarding.Destination, status: Int, recordedPath: String? = nil) -> String {
        "the server was stopping while the request was forwarded to \(destination.shown): it answered \(status) itself; "
            + (recordedPath.map { "the upstream's answer came meanwhile and was recorded to '\($0)', but was not sent" }
                ?? "the upstream's answer was not sent")
    }

    /// Forwards `request` to `destination`; `completion` gets the upstream's answer, or a JSON
    /// 502/504 when there is none, or in place of one whose status cannot be passed on
    /// (``unsendableStatus(_:)``).
    /// - Parameter isWanted: whether the client still waits (``HTTPResponder/isWaiting``); once
    ///   it does not, the upstream transfer is cancelled (``OutboundClient/send(_:isWanted:completion:)``)
    ///   and `completion` gets the JSON error of ``OutboundError/cancelled``, which is not sent.
    func forward(
        _ request: HTTPRequest, to destination: Forwarding.Destination, isWanted: @escaping @Sendable () -> Bool = { true },
        completion: @escaping @Sendable (Answer) -> Void
    ) {
        guard !forwarding.isLoop(request) else {
            log.warning("\(request.method) \(request.target) → \(destination.shown): forwarding loop (Via names this server)")
            completion(Answer(response: forwarding.loopDetected, answeredBy: destination.answeredBy, recordedPath: nil))
            return
        }
        var sent = request
        sent.headers = HTTPHeaders(admin.removingToken(from: request.headers.fields))
        let outbound = forwarding.outboundRequest(sent, to: destination)
        client.send(outbound, isWanted: isWanted) { [forwarding, recorder, log, cors, recordsOnceJournaled] result in
            switch result {
            case let .success(upstream):
                if let reason = Self.unsendable(upstream) {
                    // Never passed on: a client cannot read it as a final answer (try6a, wire6 leftover).
                    let problem = Self.problem(reason, recording: recorder != nil)
                    log.warning("\(request.method) \(request.target) → \(destination.shown): \(problem)")
                    recorder?.failures.add(1, ordering: .relaxed)
                    let replaced = forwarding.generated(APIError(status: 502, reason: reason))
                    completion(Answer(response: replaced, answeredBy: destination.answeredBy, recordedPath: nil, notRecorded: problem))
                    return
                }
                let (response, leftOut) = forwarding.response(from: upstream, method: request.method)
                var path: String?
                var pending: FileMockRecorder.PendingRecording?
                var notRecorded: String?
                // Measured as MockServing measures it before sending, CORS fields included, once:
                // MockServing's check before sending reuses it (Answer.measured).
                let measured = recorder == nil ? nil : OversizedHead.Outgoing(response, to: request, cors: cors).measured
                if let headSize = measured?.headSize, headSize > request.responseHeadRoom {
                    // Answered with a 502 in its place (MockServing): a file mock made of it
                    // could not be sent either (docs/files.md#recording). Its journal entry's
                    // `problem` is the 502's, marked `not recorded: ` as every other one, and
                    // counted (tester finding tester52a-F5: neither, while the log said so).
                    let problem = "not recorded: "
                        + OversizedHead.problem(source: "the upstream's answer", size: headSize, room: request.responseHeadRoom)
                    log.warning("record mode: \(request.method) \(request.target) \(problem)")
                    notRecorded = problem
                    recorder?.failures.add(1, ordering: .relaxed)
                } else if !leftOut.isEmpty {
                    // Said in every mode; record mode writes nothing (not the backend's answer).
                    let problem = Forwarding.leftOutProblem(leftOut, recording: recorder != nil)
                    log.warning("\(request.method) \(request.target) → \(destination.shown): \(problem)")
                    notRecorded = problem
                    recorder?.failures.add(1, ordering: .relaxed)
                } else if let recorder, let skipped = Self.skippedByRule(
                    request, response, includesQuery: recorder.directory.includesQuery,
                    basePath: destination.answeredBy == .redirect ? forwarding.redirectBasePath : "") {
                    notRecorded = skipped
                } else if let recorder {
                    do throws(FileMockError) {
                        if let problem = Self.replayHeadProblem(response, to: request, cors: cors) {
                            recorder.failures.add(1, ordering: .relaxed)
                            throw .cannotReplay(target: request.target, reason: problem)
                        }
                        let staged = try recorder.stage(
                            method: request.method, target: request.target, accept: request.headers.first("Accept"),
                            status: response.status, headers: response.headers.fields, body: response.body,
                            fieldsNotUTF8: upstream.fieldsNotUTF8)
                        if recordsOnceJournaled {
                            pending = staged
                            path = staged.path
                        } else {
                            path = try staged.place()
                        }
                        if let path, let replaced = recorder.replacedTarget(
                            path: path, target: request.target, tenant: CatbirdHandler.tenant(of: request)) {
                            if replaced.first { log.warning("record mode: \(replaced.logged) (said once per file; each entry's problem says it)") }
                            notRecorded = replaced.problem
                        }
                    } catch {
                        log.warning("record mode: \(error)")
                        notRecorded = error.notRecordedProblem
                    }
                }
                completion(Answer(
                    response: response, answeredBy: destination.answeredBy, recordedPath: path, pending: pending,
                    notRecorded: notRecorded, measured: measured))
            case .failure(.cancelled):
                completion(Answer(response: forwarding.response(for: .cancelled), answeredBy: destination.answeredBy, recordedPath: nil))
            case let .failure(error):
                log.warning("\(request.method) \(request.target) → \(destination.shown): \(error)")
                let refusal = Forwarding.refusal(for: error)
                let response = forwarding.generated(refusal)
                let problem: String?
                switch error {
                case .shutDown:
                    problem = Self.stoppingProblem(destination, status: response.status)
                case .invalidContentLength, .unusable:
                    // Journaled and counted as the differing Content-Length values are (unsendable(_:)).
                    problem = Self.problem(refusal.reason, recording: recorder != nil)
                    recorder?.failures.add(1, ordering: .relaxed)
                default:
                    // No answer came (unreachable, too slow, too large, untrusted): record mode
                    // says so in the journal, as it does for every answer it did not write, not
                    // counted as a recording failure (tester29d-F2's note: the entry had no
                    // `problem`, so a search for `not recorded` missed it).
                    problem = recorder == nil ? nil : Self.problem(refusal.reason, recording: true)
                }
                completion(Answer(response: response, answeredBy: destination.answeredBy, recordedPath: nil, notRecorded: problem))
            }
        }
    }
}
