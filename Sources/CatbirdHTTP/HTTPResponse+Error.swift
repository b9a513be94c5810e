@_spi(Server) import CatbirdWire

extension HTTPResponse {
    /// An error answer in Catbird's one error shape (docs/protocol.md#errors): `status` with the
    /// body `{"error":true,"reason":"…"}` (``CatbirdWire/CatbirdErrorBody``) and
    /// `Content-Type: application/json; charset=utf-8`. The answers the adapter makes itself
    /// (shutdown, an unreadable file, a dropped responder) use it, as the server's routes do.
    /// - Parameters:
    ///   - status: a 4xx or 5xx status.
    ///   - reason: one sentence for the user; cut to its first ``maxErrorReasonBytes`` UTF-8
    ///     bytes (at a Unicode scalar boundary) and `…` when longer.
    public static func error(status: Int, reason: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: errorHeaders, body: Array(CatbirdErrorBody(reason: boundedReason(reason)).json.utf8))
    }

    /// `reason` cut to its first ``maxErrorReasonBytes`` UTF-8 bytes (at a Unicode scalar
    /// boundary) and `…` when longer; else `reason`. Every error's reason is bound so, the 404's
    /// of an unmatched request too (written in pieces, ``CatbirdServer``'s `NotFoundAnswer`).
    public static func boundedReason(_ reason: String) -> String {
        reason.utf8.count > maxErrorReasonBytes ? reason.utf8Prefix(maxErrorReasonBytes) + "…" : reason
    }

    /// The most UTF-8 bytes of an error's reason: 8,000 (and the `…` after a cut). Input a reason
    /// echoes is cut where it is quoted (ids and values to 64 bytes, SQL to 300, SQLite's message
    /// to 200); this bounds the rest, so that no error answer grows with its request (try6b
    /// finding 10). Bytes, not `Character`s: one character can be any number of combining marks
    /// (try7b F10). Room enough for the longest reason built on purpose, the wait timeout's 20
    /// arrivals of 200-character URLs.
    public static let maxErrorReasonBytes = 8000

    /// The 503 a stopping server sends in place of an answer (``HTTPHandler/stoppingResponse``'s
    /// default): `{"error":true,"reason":"the server is stopping"}`, `Connection: close`, and
    /// `Retry-After: 1` as every 503 of the server's own (try10a F8).
    public static let serverStopping: HTTPResponse = {
        var response = HTTPResponse.error(status: 503, reason: "the server is stopping")
        response.headers.add(name: "Connection", value: "close")
        response.headers.add(name: "Retry-After", value: "1")
        return response
    }()

    /// The header fields of ``error(status:reason:)``: the JSON Content-Type alone.
    public static let errorHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
}
