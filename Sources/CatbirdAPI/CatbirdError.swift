@_spi(Server) import CatbirdWire
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server answered a control or journal call with a non-2xx status.
///
/// Catbird answers failures with `{"error": true, "reason": "…"}`; ``reason`` is that text
/// (or the body's text when it is not such JSON, or nil for an empty body). Transport
/// failures (server not running, timeout) are thrown as `URLError` instead, and an answer
/// that cannot be read as the expected JSON as `DecodingError`.
public struct CatbirdError: LocalizedError, CustomNSError, CustomStringConvertible, Equatable, Sendable {
    /// `com.redmadrobot.catbird.APIErrorDomain`, as in Catbird 0.11.
    public static var errorDomain: String { "com.redmadrobot.catbird.APIErrorDomain" }

    /// The HTTP status code of the answer, such as 400 (the `NSError` code).
    public let errorCode: Int

    /// The server's reason, such as `invalid regular expression …`; nil when it gave none.
    public let failureReason: String?

    /// The HTTP status code of the answer (same as ``errorCode``).
    public var statusCode: Int { errorCode }

    /// The server's reason (same as ``failureReason``).
    public var reason: String? { failureReason }

    /// An error for an answer with this status and reason.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status code.
    ///   - reason: the server's reason, if any.
    public init(statusCode: Int, reason: String?) {
        errorCode = statusCode
        failureReason = reason
    }

    /// The error for an answer with `statusCode` and `body`: the reason is the body's
    /// `reason` when it is Catbird's error JSON, else its trimmed UTF-8 text, else nil.
    init(statusCode: Int, body: Data) {
        let reason = (try? JSONDecoder().decode(CatbirdErrorBody.self, from: body))?.reason
            ?? String(data: body, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(statusCode: statusCode, reason: reason?.isEmpty == false ? reason : nil)
    }

    /// `Catbird answered 400 (bad request): <reason>`.
    public var errorDescription: String? {
        let status = "Catbird answered \(errorCode) (\(HTTPURLResponse.localizedString(forStatusCode: errorCode)))"
        return failureReason.map { "\(status): \($0)" } ?? status
    }

    /// The same as ``errorDescription``.
    public var description: String { errorDescription ?? "Catbird answered \(errorCode)" }

    /// `NSLocalizedDescriptionKey` and `NSLocalizedFailureReasonErrorKey` (when there is a reason).
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let failureReason { userInfo[NSLocalizedFailureReasonErrorKey] = failureReason }
        return userInfo
    }
}
