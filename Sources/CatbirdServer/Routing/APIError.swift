import CatbirdHTTP
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// A failure answered as `{"error": true, "reason": "…"}` with a 4xx/5xx status (docs/protocol.md#errors).
struct APIError: HTTPResponseError, Sendable {
    let status: Int
    let reason: String
    /// A 405's methods, sent as `Allow` (RFC 9110 §15.5.6; ``methodNotAllowed(_:)``).
    var allow: String? = nil
    /// Sent with `Connection: close`, its connection closed after it: a refusal whose client's
    /// connection is to give its slot back at once (a parked request's 429).
    var closesConnection = false

    static func badRequest(_ reason: String) -> APIError { APIError(status: 400, reason: reason) }
    static func forbidden(_ reason: String) -> APIError { APIError(status: 403, reason: reason) }
    /// 401, answered with `WWW-Authenticate: Bearer realm="catbird"` (RFC 9110 §11.6.1).
    static func unauthorized(_ reason: String) -> APIError { APIError(status: 401, reason: reason) }
    static let notFound = APIError(status: 404, reason: "Not Found")
    /// 404 for a path under `/catbird/` that no control route serves: says what was asked, the
    /// route `meant` when one is close (`no control route POST "/catbird/api/mock" (did you mean
    /// POST /catbird/api/mocks?)`, ``RouteTable/suggestion(method:path:)``), and where the
    /// routes are listed (docs/protocol.md#openapi-document).
    static func noControlRoute(_ method: String, _ path: Substring, meant: String? = nil) -> APIError {
        APIError(
            status: 404,
            reason: "no control route \(method) \(JSONText.shortString(String(path)))\(meant.map { " (did you mean \($0)?)" } ?? ""); "
                + "the control routes are listed in GET /catbird/api/openapi.json")
    }
    /// 415 for a control body sent with a `Content-Encoding` other than `identity` (T12-F5: a
    /// gzipped body was called invalid JSON, "found the control character U+001F"): control
    /// routes read their JSON as sent; mock routes decode gzip and deflate bodies for matching
    /// (docs/protocol.md#request-bodies).
    static func unsupportedContentEncoding(_ coding: String) -> APIError {
        APIError(
            status: 415,
            reason: "Content-Encoding \(JSONText.shortString(coding)) is not accepted on control routes: send the JSON uncompressed")
    }
    /// 405 with `Allow: allowed` (a comma-separated list of methods).
    static func methodNotAllowed(_ allowed: String) -> APIError {
        APIError(status: 405, reason: "Method Not Allowed (allowed: \(allowed))", allow: allowed)
    }
    /// 413 for a body over `limit` bytes, naming the option and its variable. For a control
    /// request (`control`), also what that means for a mock: its body travels as base64, 4/3
    /// of its size, so the largest mock body an `update` can carry is about 3/4 of the limit
    /// (try7a F6: a 40 MiB mock body was refused at the default 50 MiB with no word of why).
    static func payloadTooLarge(limit: Int, control: Bool) -> APIError {
        var reason = "request body is larger than the limit of \(limit) bytes (--max-body-size, CATBIRD_MAX_BODY_SIZE)"
        if control {
            reason += "; a control request carries a mock's body as base64, 4/3 of its size, so a mock body of at most "
                + "about \(limit / 4 * 3) bytes fits"
        }
        return APIError(status: 413, reason: reason)
    }
    /// 503 for a request body the server-wide budget has no room for (docs/protocol.md#errors);
    /// `tenantShare`: the tenant's share it would have passed, when it would (tester39b-F8).
    /// `largeRoom`: what a body of its size may take of `limit` (a body over 64 KiB leaves the
    /// last eighth to smaller ones; tester finding tester41a-F1: the reason said the server held
    /// its limit while 1,560,768 of 2,097,152 bytes were held).
    static func bodiesOverBudget(limit: Int, largeRoom: Int? = nil, tenantShare: Int? = nil) -> APIError {
        guard let tenantShare else {
            let held = if let largeRoom, largeRoom < limit {
                "the \(largeRoom) bytes that bodies over 64 KiB may take of its limit of \(limit) bytes (the last eighth is kept "
                    + "for smaller ones) of request bodies and forwarded answers held at once"
            } else {
                "its limit of \(limit) bytes of request bodies and forwarded answers at once"
            }
            return APIError(
                status: 503,
                reason: "the server is holding \(held) (--max-buffered-bodies, CATBIRD_MAX_BUFFERED_BODIES): retry once other "
                    + "uploads ended, or raise it; its body was not kept")
        }
        return APIError(status: 503, reason: overShare(tenantShare, of: limit, what: "its body was not kept; retry once its other uploads ended"))
    }
    /// The reason of a 503 for a holding that would pass its tenant's `share` of the budget's
    /// `limit` bytes (docs/tenancy.md#fair-shares), ending with `what` (what happened, what to do).
    static func overShare(_ share: Int, of limit: Int, what: String) -> String {
        "this tenant's request bodies and answers held in memory would pass its share of \(share) bytes of the \(limit) "
            + "bytes the server holds at once (--max-buffered-bodies, CATBIRD_MAX_BUFFERED_BODIES): past its share (one body "
            + "of --max-body-size) a tenant takes more only while as much stays free for other tenants "
            + "(docs/tenancy.md#fair-shares); \(what)"
    }
    /// 503 for an upstream's answer the server-wide budget has no room for (redirect and proxy
    /// modes; tester finding tester29d-F2: it said "retry once other uploads ended … its body was
    /// not kept", as for a request body, to a GET that had none).
    static func forwardedAnswerOverBudget(limit: Int, tenantShare: Int? = nil) -> APIError {
        if let tenantShare {
            return APIError(
                status: 503,
                reason: "the upstream's answer did not fit: " + overShare(
                    tenantShare, of: limit, what: "nothing of the answer was sent; retry once its other transfers ended"))
        }
        return APIError(
            status: 503,
            reason: "the upstream's answer did not fit: the server is holding its limit of \(limit) bytes of request bodies "
                + "and forwarded answers at once (--max-buffered-bodies, CATBIRD_MAX_BUFFERED_BODIES): retry once other "
                + "transfers ended, or raise it; nothing of the answer was sent")
    }
    /// 503 for a control answer of `bytes` the server-wide budget has no room for in `share`
    /// (``ControlAnswerBytes``, ``HARExport``): answers not yet read by their clients hold it,
    /// or the share's tenant would pass its own part of it (tester39b-F8).
    static func answersOverBudget(bytes: Int, in share: ByteBudget.Share) -> APIError {
        let budget = share.budget
        if share.keptOutByShare(toHold: bytes, largest: bytes) {
            return APIError(
                status: 503,
                reason: "this answer of \(bytes) bytes was not kept: " + overShare(
                    budget.holderShare, of: budget.limit,
                    what: "retry once its clients have read the others, or ask for less (a smaller page or limit)"))
        }
        let limit = budget.limit
        return APIError(
            status: 503,
            reason: "this answer of \(bytes) bytes was not kept: the server is holding its limit of \(limit) bytes of request "
                + "bodies and answers not yet read by their clients (--max-buffered-bodies, CATBIRD_MAX_BUFFERED_BODIES): "
                + "retry once clients have read theirs, ask for less (a smaller page or limit), or raise it")
    }
    /// 415 for a control body that is not declared JSON, naming the type received (tester
    /// finding tester30a-F3: `curl -d` sends `application/x-www-form-urlencoded`, and the
    /// reason did not say so, nor how to send JSON).
    static func unsupportedMediaType(_ received: String?) -> APIError {
        let got = received.map { "got \(JSONText.shortString($0))" } ?? "got none"
        return APIError(
            status: 415,
            reason: "Content-Type must be application/json (\(got); with curl, add -H 'Content-Type: application/json' to -d)")
    }

    /// 400 for a control request whose Content-Type fields, or one field's list, name several
    /// types (`types`, as sent), not all JSON: a body has one media type (RFC 9110 section
    /// 8.3), and which one was meant cannot be told.
    static func severalContentTypes(_ types: [String]) -> APIError {
        APIError(
            status: 400,
            reason: "the request has \(types.count) Content-Type values that differ (\(types.prefix(4).map { JSONText.shortString($0) }.joined(separator: ", ")))"
                + ", and a body has one type (RFC 9110 section 8.3): send one, Content-Type: application/json")
    }

    /// The headers of every error response: the JSON Content-Type alone.
    static let headers = HTTPResponse.errorHeaders
    /// ``headers`` as the journal's JSON object (``JSONText/object(_:)``), built once.
    static let headersJSON = JSONText.object(headers.fields)

    /// The JSON error response, with ``headers`` (the reason cut by
    /// ``CatbirdHTTP/HTTPResponse/error(status:reason:)`` past
    /// ``CatbirdHTTP/HTTPResponse/maxErrorReasonBytes``).
    var response: HTTPResponse {
        var response = HTTPResponse.error(status: status, reason: reason)
        if status == 401 { response.headers.add(name: "WWW-Authenticate", value: "Bearer realm=\"catbird\"") }
        if let allow { response.headers.add(name: "Allow", value: allow) }
        if closesConnection { response.headers.add(name: "Connection", value: "close") }
        // Every 503 of the server's own is passing (buffered bodies at their limit, a stopping
        // server, a journal write that failed): the reason says retry, the field says when
        // (tester finding try10a F8, RFC 9110 section 10.2.3).
        if status == 503 { response.headers.add(name: "Retry-After", value: "1") }
        return response
    }
}
