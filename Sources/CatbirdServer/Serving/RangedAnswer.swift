import CatbirdHTTP
import CatbirdSupport

/// Byte ranges of file mocks' and mocks' answers (docs/files.md#byte-ranges; RFC 9110 §14),
/// for players that ask for a part first (iOS AVPlayer sends `Range: bytes=0-1` and gives up on a
/// 200: tester finding try8a F7). An answer takes ranges when it is a 200 whose fields set no
/// `Content-Range` and no `Accept-Ranges: none`: a `GET` with a `Range` then gets 206 with that
/// part (``ByteRanges``), or 416 when no part of it exists; the journal records what was sent.
enum RangedAnswer {
    /// Whether an answer of `status` with `headers` takes ranges (see the type): a mock or sidecar
    /// that sets another status, its own `Content-Range` or `Accept-Ranges: none` is sent as given.
    static func takesRanges(status: Int, headers: HTTPHeaders) -> Bool {
        status == 200 && headers.first("Content-Range") == nil
            && headers.first("Accept-Ranges").map { !$0.equalsIgnoringASCIICase("none") } ?? true
    }

    /// What `request` asks of an answer with `headers` (its validators) whose body is `length`
    /// bytes: only a `GET` has ranges (RFC 9110 §14.2: a `HEAD` gets the whole answer's head).
    static func outcome(of request: HTTPRequest, headers: HTTPHeaders, length: Int) -> ByteRanges.Outcome {
        guard request.method == "GET" else { return .whole }
        return ByteRanges.outcome(
            range: request.headers.first("Range"), ifRange: request.headers.first("If-Range"), entityTag: headers.first("ETag"),
            lastModified: headers.first("Last-Modified"), length: length)
    }

    /// `headers` with `Accept-Ranges: bytes` added unless they have the field.
    static func advertising(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard headers.first("Accept-Ranges") == nil else { return headers }
        var advertised = headers
        advertised.add(name: "Accept-Ranges", value: "bytes")
        return advertised
    }

    /// Whether `request` asks for a part of a mock's answer: a `GET` with a `Range` field. Only
    /// such a request has its mock's answer looked at (``response(_:for:)``); every other one gets
    /// it as given, as in Catbird 0.11 (no `Accept-Ranges` added).
    static func isAsked(by request: HTTPRequest) -> Bool {
        request.method == "GET" && request.headers.first("Range") != nil
    }

    /// A mock's answer for a request that asks for a part of it (``response(_:for:)``).
    struct Made {
        /// The answer to send.
        var response: HTTPResponse
        /// For a part sent from the mock's stored body (over ``CatbirdHTTP/HTTPResponse/Body/copiedBytesLimit``,
        /// a stream that shares it): the part, shared too, for the journal; nil when the
        /// answer's body is in it.
        var journalBody: JournaledBody?
    }

    /// `response` (a mock's answer as given, its body in memory) for `request`, which asks for a
    /// part of it (``isAsked(by:)``): with `Accept-Ranges: bytes`, as 206 with that part, as 416
    /// when no part of it exists, or whole (200) when the `Range` does not apply (``ByteRanges/Outcome/whole``);
    /// nil when the response does not take ranges (``takesRanges(status:headers:)``) or has no
    /// body: it goes out as given. A part over ``CatbirdHTTP/HTTPResponse/Body/copiedBytesLimit``
    /// is sent from the stored body, not a copy of it (tester finding try10b F1: 60 clients
    /// that did not read `bytes=1-` of a 36 MB mock held 60 copies, 1.9 GB); the journal
    /// writer copies what it keeps of it.
    static func response(_ response: HTTPResponse, for request: HTTPRequest) -> Made? {
        // An empty body has no part to send: it goes out as given, as in 0.11, not as a 416
        // (review of this change; RFC 9110 section 14.2 lets a server ignore Range).
        guard !response.body.isEmpty, takesRanges(status: response.status, headers: response.headers) else { return nil }
        var ranged = response
        ranged.headers = advertising(response.headers)
        let whole = response.body
        let length = whole.count
        switch outcome(of: request, headers: ranged.headers, length: length) {
        case .whole:
            return Made(response: ranged)
        case let .part(part):
            ranged.status = 206
            ranged.headers.add(name: "Content-Range", value: ByteRanges.contentRange(part, length: length))
            ranged.content = .part(of: whole, part)
            guard case .stream = ranged.content else { return Made(response: ranged) }
            return Made(response: ranged, journalBody: JournaledBody(bytes: whole[part], size: part.count))
        case .unsatisfiable:
            return Made(response: unsatisfiable(request, length: length))
        }
    }

    /// The 416 for `request`, whose `Range` names no byte of a body of `length` bytes: the JSON
    /// error with `Content-Range: bytes */length` (RFC 9110 §15.5.17) and `Accept-Ranges: bytes`.
    static func unsatisfiable(_ request: HTTPRequest, length: Int) -> HTTPResponse {
        let range = request.headers.first("Range") ?? ""
        var response = APIError(
            status: 416,
            reason: "the Range \(JSONText.shortString(range)) names no byte of this answer's \(length) bytes (a range must start "
                + "before its length, RFC 9110 section 14.1.1; docs/files.md#byte-ranges)"
        ).response
        response.headers.add(name: "Content-Range", value: ByteRanges.unsatisfiedRange(length: length))
        response.headers.add(name: "Accept-Ranges", value: "bytes")
        return response
    }
}
