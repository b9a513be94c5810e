import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport

/// The one place a route's error becomes an HTTP answer `{"error":true,"reason":"…"}`
/// (docs/protocol.md#errors):
/// - an ``HTTPResponseError`` (the routes' ``APIError``, the domain's errors, the SQL
///   sandbox's) with its own status and reason; a 5xx among them is logged, as an error, or
///   as a warning when it is load (``ServerBusyError``: a wait past its bound, as a 429 is);
/// - an `SQLiteError` from the database's environment (busy, full, read-only, corrupt, I/O;
///   `SQLiteError.isEnvironmental`) as 503 with that reason, logged: retrying later may help,
///   and it is never the request's fault, so never a 400;
/// - anything else as a logged 500 whose reason leaks nothing.
enum ErrorAnswer {
    static func response(for error: any Error, log: Logger) -> HTTPResponse {
        if let answer = error as? any HTTPResponseError {
            if answer is any ServerBusyError {
                log.warning("answered \(answer.status): \(answer.reason)")
            } else if answer.status >= 500 {
                log.error("answered \(answer.status): \(answer.reason) (\(error))")
            }
            return APIError(status: answer.status, reason: answer.reason).response
        }
        if let sqlite = error as? SQLiteError, let reason = sqlite.environmentalReason {
            log.error("database unavailable: \(sqlite)")
            return APIError(status: 503, reason: reason).response
        }
        log.error("internal error: \(error)")
        return APIError(status: 500, reason: "internal error (see the server log)").response
    }
}
