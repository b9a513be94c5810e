@_spi(Server) import CatbirdWire

extension HTTPResponse {
    /// An error answer in Catbird's one error shape (docs/protocol.md#errors): `status` with the
    /// body `{"error":true,"reason":"…"}` (``CatbirdWire/CatbirdErrorBody``) and
    /// `Content-Type: application/json; charset=utf-8`. The answers the adapter makes itself
    /// (shutdown, an unreadable file, a dropped responder) use it, as the server's routes do.
    /// - Parameters:
    ///   - status: a 4xx or 5xx status.
    ///   - reason: one sentence for the user; cut to ``maxErrorReasonCharacters`` characters and
    ///     `…` when longer.
    public static func error(status: Int, reason: String) -> HTTPResponse {
        // No more bytes than the bound: no more characters, none counted.
        let shown = reason.utf8.count > maxErrorReasonCharacters && reason.count > maxErrorReasonCharacters ? String(reason.prefix(maxErrorReasonCharacters)) + "…" : reason
        return HTTPResponse(status: status, headers: errorHeaders, body: Array(CatbirdErrorBody(reason: shown).json.utf8))
    }

    /// The most characters of an error's reason: 8,000. Input a reason echoes is cut where it is
    /// quoted (ids and values to 64 characters, SQL to 300, SQLite's message to 200); this bounds
    /// the rest, so that no error answer grows with its request (try6b finding 10); room enough
    /// for the longest reason built on purpose, the wait timeout's 20 arrivals of 200-character
    /// URLs.
    public static let maxErrorReasonCharacters = 8000

    /// The header fields of ``error(status:reason:)``: the JSON Content-Type alone.
    public static let errorHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
}
