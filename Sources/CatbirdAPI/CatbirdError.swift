@_spi(Server) import CatbirdWire
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server answered a control or journal call with a non-2xx status, or with a 2xx answer
/// that is not Catbird's JSON (then ``statusCode`` is that 2xx status and ``reason`` names the
/// URL, the status, the answer's start and the likely cause: the client is pointed at another
/// HTTP server), or the client refused a call before sending it (400, such as a non-finite
/// `waitForRequest` timeout).
///
/// Catbird answers failures with `{"error": true, "reason": "…"}`; ``reason`` is that text
/// (or the body's text when it is not such JSON, or nil for an empty body). Transport
/// failures (server not running, timeout) are thrown as `URLError` instead.
public struct CatbirdError: LocalizedError, CustomNSError, CustomStringConvertible, Equatable, Sendable {
    /// The `NSError` domain: `com.redmadrobot.catbird.APIErrorDomain`, as in Catbird 0.11, and
    /// settable as there (a suite may rename it; every later bridging uses the new value).
    /// Thread-safe.
    public static var errorDomain: String {
        get { domain.current }
        set { domain.withLock { $0 = newValue } }
    }

    private static let domain = Locked("com.redmadrobot.catbird.APIErrorDomain")

    /// The HTTP status code of the answer, such as 400 (the `NSError` code).
    public let errorCode: Int

    /// The server's reason, such as `invalid regular expression …`; nil when it gave none.
    public let failureReason: String?

    /// The HTTP status code of the answer (same as ``errorCode``).
    public var statusCode: Int { errorCode }

    /// The server's reason (same as ``failureReason``).
    public var reason: String? { failureReason }

    /// Who said ``reason``, for ``description`` only (equality compares the status and the
    /// reason): Catbird, another server at the client's URL, or the client itself.
    enum Origin: Sendable {
        case catbird
        /// An answer that is not Catbird's JSON, from the server at this base URL.
        case otherServer(String)
        /// A call the client refused before sending it.
        case client
    }

    private var origin = Origin.catbird

    /// An error for an answer with this status and reason.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status code.
    ///   - reason: the server's reason, if any.
    public init(statusCode: Int, reason: String?) {
        errorCode = statusCode
        failureReason = reason
    }

    /// A call the client refuses before sending it, with status 400: `reason` says why and
    /// ends `(refused by the client, nothing sent…)`; ``description`` says the client refused it.
    init(refusal reason: String) {
        self.init(statusCode: 400, reason: reason)
        origin = .client
    }

    /// Equal when the status and the reason are.
    public static func == (lhs: CatbirdError, rhs: CatbirdError) -> Bool {
        lhs.errorCode == rhs.errorCode && lhs.failureReason == rhs.failureReason
    }

    /// The error for an answer with `statusCode` and `body`: the reason is the body's
    /// `reason` when it is Catbird's error JSON, else its trimmed UTF-8 text, cut after
    /// ``otherBodyShown`` bytes, else nil. Read once: a body that is not Catbird's, from the
    /// server at `base`, is described as that server's, not Catbird's (tester finding
    /// tester48c-F5: a dev server's 404 page read "Catbird answered 404").
    init(statusCode: Int, body: Data, base: URL? = nil) {
        if let catbirds = try? JSONDecoder().decode(CatbirdErrorBody.self, from: body) {
            self.init(statusCode: statusCode, reason: catbirds.reason.isEmpty ? nil : catbirds.reason)
            return
        }
        let text = String(data: body, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(statusCode: statusCode, reason: text.flatMap { $0.isEmpty ? nil : Self.cut($0, bodySize: body.count) })
        if let base { origin = .otherServer(base.absoluteString) }
    }

    /// Bytes of an error body that is not Catbird's JSON kept in the reason: 500. A proxy's or
    /// another server's error page (1 MiB of HTML) went whole into the test failure (tester
    /// finding tester44c-F8).
    static let otherBodyShown = 500

    /// `text` when it fits ``otherBodyShown`` bytes, else its first characters that do, with
    /// `… (<bodySize> bytes in all; not Catbird's error JSON)`.
    private static func cut(_ text: String, bodySize: Int) -> String {
        guard text.utf8.count > otherBodyShown else { return text }
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= otherBodyShown else { break }
            kept.append(character)
        }
        return kept + "… (\(bodySize) bytes in all; not Catbird's error JSON)"
    }

    /// The error for a 2xx answer to `request` that `error` says is not the expected JSON:
    /// its reason names the URL, the status, the answer's Content-Type and first 200 bytes,
    /// and the likely cause (tester finding tester22a-F17: a bare `DecodingError` named none).
    init(unreadableAnswer body: Data, response: HTTPURLResponse, request: URLRequest, base: URL, error: DecodingError) {
        let detail: String
        switch error {
        case let .dataCorrupted(context): detail = context.debugDescription
        case let .keyNotFound(key, _): detail = "no \"\(key.stringValue)\" field"
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            detail = path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: detail = "\(error)"
        }
        self.init(notCatbirds: body, response: response, request: request, base: base, what: "Catbird's JSON (\(detail))")
    }

    /// The error for a 2xx answer to `request` whose status is none of `expected`, the ones
    /// Catbird answers that call with (a call whose answer has no JSON to check): another
    /// server's answer (tester finding tester44c-F2: `send` took a dev server's `200` HTML page
    /// for a change made, and the test's mocks were never there).
    init(unexpectedStatus body: Data, response: HTTPURLResponse, request: URLRequest, base: URL, expected: Set<Int>) {
        let statuses = expected.sorted().map(String.init).joined(separator: " or ")
        self.init(notCatbirds: body, response: response, request: request, base: base, what: "Catbird's answer (which is \(statuses))")
    }

    /// `the answer to <method> <url> (status <n>, Content-Type <type>) is not <what>; it begins
    /// <start>. Is <base> a Catbird server (its --port), and this client as new as the server?`
    private init(notCatbirds body: Data, response: HTTPURLResponse, request: URLRequest, base: URL, what: String) {
        let method = request.httpMethod ?? "GET"
        let target = request.url?.absoluteString ?? base.absoluteString
        let contentType = response.value(forHTTPHeaderField: "Content-Type").map { ", Content-Type \($0)" } ?? ""
        self.init(statusCode: response.statusCode, reason: """
            the answer to \(method) \(target) (status \(response.statusCode)\(contentType)) is not \(what); \
            it begins \(Self.quotedStart(of: body)). Is \(base.absoluteString) a Catbird server (its --port), \
            and this client as new as the server?
            """)
        origin = .otherServer(base.absoluteString)
    }

    /// Whether `body` is Catbird's error JSON, `{"error": true, "reason": "…"}`.
    static func isCatbirdsError(_ body: Data) -> Bool {
        (try? JSONDecoder().decode(CatbirdErrorBody.self, from: body))?.error == true
    }

    /// The first 200 bytes of `body` as quoted text (invalid UTF-8 replaced, line breaks and
    /// control characters escaped), or `an empty body`.
    private static func quotedStart(of body: Data) -> String {
        guard !body.isEmpty else { return "with an empty body" }
        let limit = 200
        var text = ""
        for scalar in String(decoding: body.prefix(limit), as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\"": text += "\\\""
            default:
                text += scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
        }
        return "\"\(text)\"" + (body.count > limit ? " (\(body.count) bytes in all)" : "")
    }

    /// The status's standard phrase, as in Catbird 0.11: `HTTPURLResponse`'s localized string
    /// for it on Apple platforms (such as `bad request`), `Status code: 400` on Linux. The
    /// server's reason is in ``failureReason``; ``description`` has both.
    public var errorDescription: String? {
        #if os(Linux)
        "Status code: \(errorCode)"
        #else
        HTTPURLResponse.localizedString(forStatusCode: errorCode)
        #endif
    }

    /// What a test failure shows: `Catbird answered 400 (bad request): <reason>`; for an
    /// answer that is not Catbird's JSON, `the server at <url> answered 404 (not found), which
    /// is not Catbird's answer (is it a Catbird server, its --port?): <its start>`; for a call
    /// the client refused, `the Catbird client refused the call: <reason>` (tester finding
    /// tester48c-F6: each read "Catbird answered").
    public var description: String {
        let phrase = HTTPURLResponse.localizedString(forStatusCode: errorCode)
        let head = switch origin {
        case .catbird: "Catbird answered \(errorCode) (\(phrase))"
        case let .otherServer(base):
            (200..<300).contains(errorCode)
                ? "the server at \(base) answered \(errorCode) (\(phrase))"
                : "the server at \(base) answered \(errorCode) (\(phrase)), which is not Catbird's error JSON (is it a Catbird server, its --port?)"
        case .client: "the Catbird client refused the call"
        }
        return failureReason.map { "\(head): \($0)" } ?? head
    }

    /// `NSLocalizedDescriptionKey` (``errorDescription``) and `NSLocalizedFailureReasonErrorKey`
    /// (when there is a reason), as in Catbird 0.11.
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [:]
        userInfo[NSLocalizedDescriptionKey] = errorDescription
        userInfo[NSLocalizedFailureReasonErrorKey] = failureReason
        return userInfo
    }
}
