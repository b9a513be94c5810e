import CatbirdWire

/// One request and its response, as handed to the journal writer.
///
/// The writer keeps at most its body limit of each body (``truncateBodies(to:)``, applied when
/// the entry is queued, so a waiting entry never holds a large body, nor shares one) and
/// records the full sizes.
public struct JournalEntry: Sendable {
    /// When the request arrived (UTC, ISO 8601 with milliseconds).
    public var time: String
    public var tenant: TenantID
    public var method: String
    /// The request-target as received.
    public var url: String
    /// Request headers as a JSON object text, the `request_headers` column (see
    /// ``JSONText/object(_:)``): `{"Host": "h", "X-Token": ["abc", "def"]}` — a name sent once
    /// maps to its value, a repeated name to the array of its values in the order received.
    public var requestHeaders: String
    public var requestBody: [UInt8]
    /// The full request body size in bytes (`requestBody` may hold a prefix only).
    public private(set) var requestBodySize: Int
    /// Whether `requestBody` is only the part of a body its client did not finish sending
    /// (it left, or the connection timed out, mid-body): stored as cut short
    /// (`request_body_truncated`), so body patterns decide on it as on a body the journal cut
    /// (tester finding tester48b-F4: `equal` matched the 10 bytes of a 100-byte body).
    public var requestBodyIncomplete = false
    public var status: Int
    /// Response headers as a JSON object text, the `response_headers` column, shaped like
    /// ``requestHeaders``.
    public var responseHeaders: String
    public var responseBody: [UInt8]
    /// The full response body size in bytes (`responseBody` may hold a prefix only).
    public private(set) var responseBodySize: Int
    /// A response body sent from bytes shared with others (a byte range sent from a mock's
    /// stored body, not copied), held in place of `responseBody` until the writer takes the
    /// entry: ``truncateBodies(to:)`` copies its first bytes into `responseBody` then, so that
    /// a large part is cut once, by the writer's body limit. Nil for every other entry.
    public private(set) var sharedResponseBody: ArraySlice<UInt8>?
    /// How the request was answered (`requests.answered_by`).
    public var answeredBy: CatbirdRequest.AnsweredBy
    /// The mock that answered, when `answeredBy == .mock`.
    public var mockHit: MockHitRecord?
    /// Milliseconds from the request's arrival to its response, any delay included.
    public var durationMs: Double
    /// The file mock that answered, or the file record mode wrote (absolute path), else nil.
    public var filePath: String?
    /// For a request nothing answered (the 404): its near misses as a JSON array, the
    /// `near_misses` column (docs/matching.md#near-misses): where they are in ``responseBody``
    /// (stored once) or their own text; nil for every other request.
    public var nearMisses: JournalNearMisses?
    /// For a request journaled without an answer of Catbird's own (libmicrohttpd's own error
    /// page, or nothing sent): why, one sentence, the `problem` column
    /// (docs/protocol.md#malformed-requests); nil for every request Catbird answered.
    public var problem: String?

    /// - Parameters:
    ///   - responseBodySize: the full response body size in bytes when `responseBody` is already
    ///     a prefix (a file mock sent from disk); nil: `responseBody.count`.
    ///   - requestBodySize: the full request body size in bytes when `requestBody` does not hold
    ///     it (a body refused as too large and discarded); nil: `requestBody.count`.
    ///   - sharedResponseBody: the response body as bytes shared with others, in place of
    ///     `responseBody` (``sharedResponseBody``).
    public init(
        time: String, tenant: TenantID, method: String, url: String, requestHeaders: String,
        requestBody: [UInt8], status: Int, responseHeaders: String, responseBody: [UInt8],
        answeredBy: CatbirdRequest.AnsweredBy, mockHit: MockHitRecord?, durationMs: Double, filePath: String? = nil,
        responseBodySize: Int? = nil, sharedResponseBody: ArraySlice<UInt8>? = nil, nearMisses: JournalNearMisses? = nil,
        problem: String? = nil, requestBodySize: Int? = nil
    ) {
        self.problem = problem
        self.filePath = filePath
        self.nearMisses = nearMisses
        self.time = time
        self.tenant = tenant
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.requestBodySize = max(requestBody.count, requestBodySize ?? 0)
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.sharedResponseBody = sharedResponseBody
        self.responseBodySize = max(responseBody.count, sharedResponseBody?.count ?? 0, responseBodySize ?? 0)
        self.answeredBy = answeredBy
        self.mockHit = mockHit
        self.durationMs = durationMs
    }
}

extension JournalEntry {
    /// Marks the request body as one its client did not finish (``requestBodyIncomplete``):
    /// its full size becomes `declaredSize` (its `Content-Length`) when that is larger than the
    /// bytes that arrived, else stays what arrived (a chunked body's whole size is unknown).
    public mutating func markRequestBodyIncomplete(declaredSize: Int?) {
        requestBodyIncomplete = true
        requestBodySize = max(requestBodySize, declaredSize ?? 0)
    }

    /// Keeps at most `limit` bytes of each body; the full sizes stay in `requestBodySize` and
    /// `responseBodySize`.
    /// Near misses the kept prefix no longer holds (or that point outside the body) become
    /// their own text first.
    mutating func truncateBodies(to limit: Int) {
        if requestBody.count > limit { requestBody = Array(requestBody.prefix(limit)) }
        if let shared = sharedResponseBody {
            responseBody = Array(shared.prefix(limit))
            sharedResponseBody = nil
        }
        if case let .inResponseBody(range) = nearMisses, range.upperBound > min(limit, responseBody.count) {
            assert(range.upperBound <= responseBody.count, "near misses \(range) outside a \(responseBody.count)-byte body")
            nearMisses = .text(String(decoding: responseBody[range.clamped(to: responseBody.indices)], as: UTF8.self))
        }
        if responseBody.count > limit { responseBody = Array(responseBody.prefix(limit)) }
    }
}

/// Where a journal entry's near misses (a JSON array text, docs/matching.md#near-misses) are
/// kept: the `near_misses` column is computed from how they were stored
/// (migrations/0008_requests_near_misses_once.sql, docs/schema.md).
public enum JournalNearMisses: Sendable, Equatable {
    /// These bytes of the entry's response body are the array (the 404 body holds it): the row
    /// stores their place (`near_misses_offset`, `near_misses_length`), not a second copy.
    case inResponseBody(Range<Int>)
    /// The array's own text (`near_misses_copy`): when the stored body does not hold it.
    case text(String)
}

/// A mock's served response, to be written to its row with the journal entry (one hit
/// counted, one use of its limit spent; the row is deleted when that uses the limit up,
/// ``MockRecords/recordHits(_:id:count:)``).
public struct MockHitRecord: Sendable {
    public var mockID: Int64

    public init(mockID: Int64) {
        self.mockID = mockID
    }
}
