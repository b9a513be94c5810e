@_spi(Server) import CatbirdWire

extension HTTPResponse {
    /// An error answer in Catbird's one error shape (docs/protocol.md#errors): `status` with the
    /// body `{"error":true,"reason":"…"}` (``CatbirdWire/CatbirdErrorBody``) and
    /// `Content-Type: application/json; charset=utf-8`. The answers the adapter makes itself
    /// (shutdown, an unreadable file, a dropped responder) use it, as the server's routes do.
    /// - Parameters:
    ///   - status: a 4xx or 5xx status.
    ///   - reason: one sentence for the user.
    public static func error(status: Int, reason: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: errorHeaders, body: Array(CatbirdErrorBody(reason: reason).json.utf8))
    }

    /// The header fields of ``error(status:reason:)``: the JSON Content-Type alone.
    public static let errorHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
}
