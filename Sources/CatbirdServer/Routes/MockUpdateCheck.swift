import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
import CatbirdWire

/// The checks `update` makes of a mock before the store takes it (docs/protocol.md#control-actions),
/// in the order the 400 reports the first: the url, the method, the header patterns, a `json`
/// body pattern (``BodyPatternCheck``), the response (``ResponseRules``, the head's size) and
/// the delay. One list for the control route, which answers the first refusal's error, and for
/// the rows start-up loads from the `mocks` table (``CatbirdDomain/MockStore/init(database:limits:check:)``),
/// which refuses the file naming the row and the column (README.md#storage-faults; tester
/// finding tester21b-F7: a row edited with `sqlite3` to status 999 was served as `HTTP/1.1 999`).
/// Not here, so made by the store on `update` only: the pattern limits
/// (``CatbirdMatching/MockPatternLimits``, which rows stored before them may exceed) and the
/// compiling of regular expressions (deferred for stored rows, try9b F14; one that does not
/// compile is logged after listening, ``CatbirdDomain/MockStore/compileStoredExpressions(log:stop:)``).
enum MockUpdateCheck {
    /// The checks of an `update`.
    /// - Throws: ``CatbirdDomain/MockRefusal`` for the first check that fails, its `error` an
    ///   ``APIError`` (400) or a `PatternError`.
    static func check(_ pattern: RequestPattern, _ response: ResponseMock) throws(MockRefusal) {
        try check(pattern, response, stored: false)
    }

    /// The checks of an `update` but ``BodyPatternCheck``, for a row of the `mocks` table:
    /// a stored body pattern's value is read as it was when it was stored, so mocks stored
    /// before that check still load and match as they did
    /// (``CatbirdMatching/CompiledBodyPattern/init(stored:)``, docs/matching.md#body-matchers).
    /// - Throws: as ``check(_:_:)``.
    static func checkStored(_ pattern: RequestPattern, _ response: ResponseMock) throws(MockRefusal) {
        try check(pattern, response, stored: true)
    }

    private static func check(_ pattern: RequestPattern, _ response: ResponseMock, stored: Bool) throws(MockRefusal) {
        try refusing(.url) { () throws(APIError) in try checkURL(pattern.url) }
        try refusing(.method) { () throws(APIError) in try checkMethod(pattern.method.rawValue) }
        try refusing(.headers) { () throws(APIError) in
            for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) { try checkHeader(name, match) }
        }
        do {
            if !stored { try BodyPatternCheck.check(pattern) }
        } catch {
            throw MockRefusal(.body, reason: error.reason, error: error)
        }
        try checkResponse(response)
    }

    /// Runs `body`, its ``APIError`` a refusal of `field`.
    private static func refusing(_ field: MockField, _ body: () throws(APIError) -> Void) throws(MockRefusal) {
        do {
            try body()
        } catch {
            throw MockRefusal(field, reason: error.reason, error: error)
        }
    }

    /// Rejects an `equal` url that is a control path (`/catbird…`, in origin or absolute form: a
    /// control request, never matched; docs/matching.md#resolution-order), and an `equal` or
    /// `wildcard` url holding a NUL, CR or LF character (a request-target with a NUL byte is
    /// refused before matching, docs/protocol.md#malformed-requests; CR and LF end the request
    /// line): no request could ever match them. A `wildcard` or `regexp` under `/catbird` is
    /// kept: both match case-insensitively, so they also match `/CATBIRD/…`, which is not a
    /// control path.
    private static func checkURL(_ url: PatternMatch) throws(APIError) {
        if url.kind == .equal, CatbirdHandler.isControlTarget(url.value) {
            throw APIError.badRequest(
                "'pattern.url.value' \(JSONText.shortString(url.value)) is a control path (/catbird or under "
                    + "/catbird/): such a request is answered by the control API and never matched against mocks")
        }
        if url.kind != .regexp, url.value.utf8.contains(where: Self.neverInALine) {
            throw APIError.badRequest(
                "'pattern.url.value' holds a NUL, CR or LF character (\\u0000, \\r, \\n), which no request-target can: "
                    + "the server refuses such requests before matching (percent-encode it: %00, %0D, %0A)")
        }
    }

    /// Rejects a `pattern.method` that is not an HTTP method token (RFC 9110 §9.1: a non-empty
    /// run of tchar), such as `""` or `"GET POST"`: no request could match it.
    private static func checkMethod(_ method: String) throws(APIError) {
        guard !method.isEmpty, method.utf8.allSatisfy(ResponseRules.isTokenCharacter) else {
            throw APIError.badRequest(
                "'pattern.method' must be an HTTP method token such as \"GET\" (letters, digits and !#$%&'*+-.^_`|~, no spaces), "
                    + "not \(JSONText.shortString(method))\(firstNonToken(in: method))")
        }
    }

    /// ` (it holds U+212A)`: the first character of `text` that is no token character, named by
    /// its code point, so that one that reads like a letter (KELVIN SIGN, a no-break space) is
    /// seen in a reason that quotes `text` (tester finding tester39a-F9: `"X-\u212Aey"` was
    /// refused as `"X-Key"` is not a header name); "" when there is none (an empty `text`).
    private static func firstNonToken(in text: String) -> String {
        guard let scalar = text.unicodeScalars.first(where: { !$0.isASCII || !ResponseRules.isTokenCharacter(UInt8($0.value)) }) else {
            return ""
        }
        return " (it holds \(scalar.codePointText))"
    }

    /// Bytes no request line or header field line can hold: NUL (refused, docs/protocol.md#malformed-requests),
    /// CR and LF (they end the line).
    private static func neverInALine(_ byte: UInt8) -> Bool { byte == 0 || byte == 0x0D || byte == 0x0A }

    /// Rejects a header pattern no request could match (docs/matching.md#request-matching): a name that is
    /// not a field name (empty, or not an HTTP token: RFC 9110 section 5.1, such as `"Bad Name"`),
    /// and an `equal` or `wildcard` value holding a NUL, CR or LF character, which no field value
    /// can hold (RFC 9110 section 5.5; a request holding one is refused before matching,
    /// docs/protocol.md#malformed-requests). A `regexp` may name them (`[^\u0000]`), so it is kept.
    private static func checkHeader(_ name: String, _ match: PatternMatch) throws(APIError) {
        guard !name.isEmpty, name.utf8.allSatisfy(ResponseRules.isTokenCharacter) else {
            throw APIError.badRequest(
                "'pattern.headers' name \(JSONText.shortString(name))\(firstNonToken(in: name)) is not an HTTP header field name (letters, digits and "
                    + "!#$%&'*+-.^_`|~, not empty, no spaces or colons): no request could match it")
        }
        if match.kind != .regexp, match.value.utf8.contains(where: neverInALine) {
            throw APIError.badRequest(
                "'pattern.headers.\(JSONText.shortText(name)).value' holds a NUL, CR or LF character (\\u0000, \\r, \\n), which no header field "
                    + "value can: no request could match it")
        }
    }

    /// Rejects what cannot be sent as a final HTTP response (``ResponseRules``, the rule file
    /// mocks follow too), a header section over ``OversizedHead/mockLimit`` as sent, and a delay
    /// outside ``CatbirdMatching/ResponseRules/delayRange`` (``CatbirdMatching/ResponseRules/checkDelay(_:)``).
    /// ``ResponseRules/check(status:headers:bodyLength:source:)`` is asked three times, so that
    /// its refusal names its field: with the status alone (only the status's range can fail),
    /// with the body too (only a body on a 204, 205 or 304 can fail then), then whole (the
    /// header fields); the first refusal is the one a single whole check gives.
    private static func checkResponse(_ response: ResponseMock) throws(MockRefusal) {
        let headers = response.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        let bodyLength = response.body?.count ?? 0
        for (field, headers, bodyLength) in [(MockField.status, [], 0), (.responseBody, [], bodyLength), (.responseHeaders, headers, bodyLength)] {
            do {
                try ResponseRules.check(status: response.status, headers: headers, bodyLength: bodyLength, source: .mock)
            } catch {
                throw MockRefusal(field, reason: error.reason, error: APIError.badRequest(error.reason))
            }
        }
        let headSize = OversizedHead.mockHeadSize(
            HTTPResponse(status: response.status, headers: HTTPHeaders(headers)), bodyLength: bodyLength)
        if headSize > OversizedHead.mockLimit {
            let reason = OversizedHead.mockRefusal(size: headSize)
            throw MockRefusal(.responseHeaders, reason: reason, error: APIError.badRequest(reason))
        }
        do {
            try ResponseRules.checkDelay(response.delay)
        } catch {
            throw MockRefusal(.delay, reason: error.reason, error: APIError.badRequest(error.reason))
        }
    }
}
