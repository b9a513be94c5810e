import CatbirdWire

/// One request and its response, as handed to the journal writer.
///
/// The writer keeps at most its body limit of each body (``truncateBodies(to:)``, applied when
/// the entry is queued, so a waiting entry never holds a large body, nor shares one) and
/// records the full sizes.
public struct JournalEntry: Sendable {
    /// The fields, shared by copies of the entry until one of them changes a field
    /// (copy-on-write): an entry is copied several times on its way from a worker to the
    /// writer's queue, and a copy of the fields themselves retains each of their strings and
    /// arrays (callgrind: about 36 retains and as many releases per journaled request; the issue
    /// names copies of `JournalEntry` as a lead).
    private var fields: Fields

    /// When the request arrived (UTC, ISO 8601 with milliseconds).
    public var time: String {
        get { fields.time }
        _modify { yield &uniqueFields().time }
    }
    public var tenant: TenantID {
        get { fields.tenant }
        _modify { yield &uniqueFields().tenant }
    }
    public var method: String {
        get { fields.method }
        _modify { yield &uniqueFields().method }
    }
    /// The request-target as received.
    public var url: String {
        get { fields.url }
        _modify { yield &uniqueFields().url }
    }
    /// Request headers as a JSON object text, the `request_headers` column (see
    /// ``JSONText/object(_:)``): `{"Host": "h", "X-Token": ["abc", "def"]}` — a name sent once
    /// maps to its value, a repeated name to the array of its values in the order received.
    public var requestHeaders: String {
        get { fields.requestHeaders }
        _modify { yield &uniqueFields().requestHeaders }
    }
    public var requestBody: [UInt8] {
        get { fields.requestBody }
        _modify { yield &uniqueFields().requestBody }
    }
    /// The full request body size in bytes (`requestBody` may hold a prefix only).
    public private(set) var requestBodySize: Int {
        get { fields.requestBodySize }
        _modify { yield &uniqueFields().requestBodySize }
    }
    /// Whether `requestBody` is only the part of a body its client did not finish sending
    /// (it left, or the connection timed out, mid-body): stored as cut short
    /// (`request_body_truncated`), so body patterns decide on it as on a body the journal cut
    /// (tester finding tester48b-F4: `equal` matched the 10 bytes of a 100-byte body).
    public var requestBodyIncomplete: Bool {
        get { fields.requestBodyIncomplete }
        _modify { yield &uniqueFields().requestBodyIncomplete }
    }
    public var status: Int {
        get { fields.status }
        _modify { yield &uniqueFields().status }
    }
    /// Response headers as a JSON object text, the `response_headers` column, shaped like
    /// ``requestHeaders``.
    public var responseHeaders: String {
        get { fields.responseHeaders }
        _modify { yield &uniqueFields().responseHeaders }
    }
    public var responseBody: [UInt8] {
        get { fields.responseBody }
        _modify { yield &uniqueFields().responseBody }
    }
    /// The full response body size in bytes (`responseBody` may hold a prefix only).
    public private(set) var responseBodySize: Int {
        get { fields.responseBodySize }
        _modify { yield &uniqueFields().responseBodySize }
    }
    /// A response body sent from bytes shared with others (a byte range sent from a mock's
    /// stored body, not copied), held in place of `responseBody` until the writer takes the
    /// entry: ``truncateBodies(to:)`` copies its first bytes into `responseBody` then, so that
    /// a large part is cut once, by the writer's body limit. Nil for every other entry.
    public private(set) var sharedResponseBody: ArraySlice<UInt8>? {
        get { fields.sharedResponseBody }
        _modify { yield &uniqueFields().sharedResponseBody }
    }
    /// How the request was answered (`requests.answered_by`).
    public var answeredBy: CatbirdRequest.AnsweredBy {
        get { fields.answeredBy }
        _modify { yield &uniqueFields().answeredBy }
    }
    /// The mock that answered, when `answeredBy == .mock`.
    public var mockHit: MockHitRecord? {
        get { fields.mockHit }
        _modify { yield &uniqueFields().mockHit }
    }
    /// Milliseconds from the request's arrival to its response, any delay included.
    public var durationMs: Double {
        get { fields.durationMs }
        _modify { yield &uniqueFields().durationMs }
    }
    /// The file mock that answered, or the file record mode wrote (absolute path), else nil.
    public var filePath: String? {
        get { fields.filePath }
        _modify { yield &uniqueFields().filePath }
    }
    /// For a request nothing answered (the 404): its near misses as a JSON array, the
    /// `near_misses` column (docs/matching.md#near-misses): where they are in ``responseBody``
    /// (stored once) or their own text; nil for every other request.
    public var nearMisses: JournalNearMisses? {
        get { fields.nearMisses }
        _modify { yield &uniqueFields().nearMisses }
    }
    /// For a request journaled without an answer of Catbird's own (libmicrohttpd's own error
    /// page, or nothing sent): why, one sentence, the `problem` column
    /// (docs/protocol.md#malformed-requests); nil for every request Catbird answered.
    public var problem: String? {
        get { fields.problem }
        _modify { yield &uniqueFields().problem }
    }

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
        fields = Fields(
            time: time, tenant: tenant, method: method, url: url, requestHeaders: requestHeaders, requestBody: requestBody,
            requestBodySize: max(requestBody.count, requestBodySize ?? 0), requestBodyIncomplete: false, status: status,
            responseHeaders: responseHeaders, responseBody: responseBody,
            responseBodySize: max(responseBody.count, sharedResponseBody?.count ?? 0, responseBodySize ?? 0),
            sharedResponseBody: sharedResponseBody, answeredBy: answeredBy, mockHit: mockHit, durationMs: durationMs,
            filePath: filePath, nearMisses: nearMisses, problem: problem)
    }

    /// The entry's fields, copied on the first change of an entry whose fields another copy
    /// shares (``uniqueFields()``).
    ///
    /// `@unchecked Sendable`: its stored properties are mutable, but an instance is changed only
    /// through ``uniqueFields()``, which first makes it the sole reference of the entry that
    /// changes it (`isKnownUniquelyReferenced`, as the standard library's own copy-on-write
    /// types do); an instance that two entries (or two threads) can see is never changed.
    ///
    /// Its properties are `@exclusivity(unchecked)` (Swift's run-time check of each access to a
    /// class's property cost 13 checks per journaled request): they are reached only through the
    /// entry's properties, whose accessors make each access one to the entry as a whole, so two
    /// overlapping accesses would be two to one variable of a value type, which the compiler
    /// refuses before anything runs.
    private final class Fields: @unchecked Sendable {
        @exclusivity(unchecked) var time: String
        @exclusivity(unchecked) var tenant: TenantID
        @exclusivity(unchecked) var method: String
        @exclusivity(unchecked) var url: String
        @exclusivity(unchecked) var requestHeaders: String
        @exclusivity(unchecked) var requestBody: [UInt8]
        @exclusivity(unchecked) var requestBodySize: Int
        @exclusivity(unchecked) var requestBodyIncomplete: Bool
        @exclusivity(unchecked) var status: Int
        @exclusivity(unchecked) var responseHeaders: String
        @exclusivity(unchecked) var responseBody: [UInt8]
        @exclusivity(unchecked) var responseBodySize: Int
        @exclusivity(unchecked) var sharedResponseBody: ArraySlice<UInt8>?
        @exclusivity(unchecked) var answeredBy: CatbirdRequest.AnsweredBy
        @exclusivity(unchecked) var mockHit: MockHitRecord?
        @exclusivity(unchecked) var durationMs: Double
        @exclusivity(unchecked) var filePath: String?
        @exclusivity(unchecked) var nearMisses: JournalNearMisses?
        @exclusivity(unchecked) var problem: String?

        init(
            time: String, tenant: TenantID, method: String, url: String, requestHeaders: String,
            requestBody: [UInt8], requestBodySize: Int, requestBodyIncomplete: Bool, status: Int,
            responseHeaders: String, responseBody: [UInt8], responseBodySize: Int,
            sharedResponseBody: ArraySlice<UInt8>?, answeredBy: CatbirdRequest.AnsweredBy, mockHit: MockHitRecord?,
            durationMs: Double, filePath: String?, nearMisses: JournalNearMisses?, problem: String?
        ) {
            self.time = time
            self.tenant = tenant
            self.method = method
            self.url = url
            self.requestHeaders = requestHeaders
            self.requestBody = requestBody
            self.requestBodySize = requestBodySize
            self.requestBodyIncomplete = requestBodyIncomplete
            self.status = status
            self.responseHeaders = responseHeaders
            self.responseBody = responseBody
            self.responseBodySize = responseBodySize
            self.sharedResponseBody = sharedResponseBody
            self.answeredBy = answeredBy
            self.mockHit = mockHit
            self.durationMs = durationMs
            self.filePath = filePath
            self.nearMisses = nearMisses
            self.problem = problem
        }

        /// A copy with every field of this one.
        func copy() -> Fields {
            Fields(
                time: time, tenant: tenant, method: method, url: url, requestHeaders: requestHeaders,
                requestBody: requestBody, requestBodySize: requestBodySize,
                requestBodyIncomplete: requestBodyIncomplete, status: status, responseHeaders: responseHeaders,
                responseBody: responseBody, responseBodySize: responseBodySize,
                sharedResponseBody: sharedResponseBody, answeredBy: answeredBy, mockHit: mockHit,
                durationMs: durationMs, filePath: filePath, nearMisses: nearMisses, problem: problem
            )
        }
    }

    /// ``fields``, first copied if another entry shares them: the one place they change.
    private mutating func uniqueFields() -> Fields {
        if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
        return fields
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
