import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// One entry of the tenant's journal, and its bodies on demand (what the web page's details
/// view reads; see README "Request journal"):
/// - `GET /catbird/api/requests/{id}[?bodies=false]` → the entry, shaped as in the listing, with
///   each side's `headerFields` besides (``CatbirdRequest/Message/headerFields``);
///   404 when the tenant has no entry with that id, 400 when `{id}` is not a whole number from 1;
/// - `GET /catbird/api/requests/{id}/request/body[?limit=n]` and `…/response/body[?limit=n]`
///   → the stored body's bytes (its first `n` when `limit` is given, n >= 0) as
///   `application/octet-stream`, with `X-Catbird-Body-Size` (bytes received) and
///   `X-Catbird-Stored-Size` (bytes the journal kept). The bytes are whatever a client sent or
///   a mock answered, so they are served as an attachment under a sandboxing
///   Content-Security-Policy: a stored HTML body opened from here cannot run in the server's
///   origin.
enum JournalEntryRoutes {
    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            Route("GET", "/catbird/api/requests/", maxSegments: 3, query: ["bodies", "limit"], lane: .quick) { context in
                let parts = context.segments
                guard let id = QueryParameters.wholeNumber(parts[0]), id > 0 else {
                    // 400, as for `DELETE /catbird/api/mocks/abc`: the request is malformed, not
                    // an entry missing (T12-F6: it was a 404).
                    throw APIError.badRequest(
                        "\(JSONText.shortString(parts[0])) is not a journal id: ids are whole numbers from 1, "
                            + "each entry's \"id\" in GET /catbird/api/requests")
                }
                let query = context.query
                switch parts.count {
                case 1:
                    // `limit` cuts a body download, not an entry (tester finding tester23b-F4:
                    // protocol.md read as if it were taken here): the refusal says where it goes.
                    if query.contains(where: { $0.name == "limit" }) {
                        throw QueryParameters.unknown(
                            "limit", known: "known: bodies; 'limit' is taken by …/\(id)/request/body and …/\(id)/response/body")
                    }
                    let bodies = try flag(named: "bodies", in: query)
                    // Each side's fields one by one too, which the listing joins (tester finding
                    // T18A-F5: the page's "Copy as curl" sent `X-Token: abc, zzz` for two fields).
                    guard let entry = try dependencies.journal.entry(of: context.tenant, id: id, bodies: bodies, headerFields: true) else {
                        throw APIError(status: 404, reason: "no journal entry \(id) in this tenant")
                    }
                    return JSONBody.response(entry)
                case 3 where parts[2] == "body":
                    guard let side = JournalSide(rawValue: String(parts[1])) else {
                        throw APIError.noControlRoute(context.request.method, context.request.path)
                    }
                    let limit = try byteLimit(in: query)
                    guard let body = try dependencies.journal.body(of: context.tenant, id: id, side: side, limit: limit) else {
                        throw APIError(status: 404, reason: "no journal entry \(id) in this tenant")
                    }
                    return response(body, id: id, side: side)
                default:
                    throw APIError.noControlRoute(context.request.method, context.request.path)
                }
            }
            .knownQuery("known: bodies for …/{id}, limit for …/{id}/request/body and …/{id}/response/body")
            .serving("/catbird/api/requests/{id}", "/catbird/api/requests/{id}/request/body", "/catbird/api/requests/{id}/response/body"),
        ]
    }

    /// The raw-body answer: an attachment that no browser renders in our origin.
    private static func response(_ body: JournalBody, id: Int64, side: JournalSide) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": "application/octet-stream",
                "Content-Disposition": "attachment; filename=\"catbird-\(id)-\(side.rawValue).bin\"",
                "Content-Security-Policy": "sandbox; default-src 'none'",
                "X-Content-Type-Options": "nosniff",
                "X-Catbird-Body-Size": "\(body.size)",
                "X-Catbird-Stored-Size": "\(body.storedSize)",
            ],
            body: body.bytes)
    }

    /// `bodies=true|false` (default true); no other parameter is accepted.
    private static func flag(named name: String, in query: [(name: String, value: String)]) throws(APIError) -> Bool {
        var result = true
        for (key, value) in query {
            guard key == name else { throw QueryParameters.unknown(key, known: "known: \(name)") }
            guard value == "true" || value == "false" else { throw APIError.badRequest("'\(name)' must be 'true' or 'false'") }
            result = value == "true"
        }
        return result
    }

    /// `limit=n` (bytes, n >= 0), or nil for the whole body; no other parameter is accepted.
    private static func byteLimit(in query: [(name: String, value: String)]) throws(APIError) -> Int? {
        var result: Int?
        for (key, value) in query {
            guard key == "limit" else {
                throw QueryParameters.unknown(key, known: key == "bodies" ? "known: limit; 'bodies' is taken by the entry, …/{id}" : "known: limit")
            }
            guard let limit = QueryParameters.wholeNumber(value).map(Int.init) else {
                throw QueryParameters.refusal("limit", value, otherwise: "'limit' must be a number of bytes (a whole number >= 0)")
            }
            result = limit
        }
        return result
    }
}
