/// How a journaled request was answered (`requests.answered_by`, spec part 3).
public enum AnsweredBy: String, Sendable, Codable, CaseIterable {
    case mock, file, proxy, redirect, none
}

/// One request and its response, as handed to the journal writer.
///
/// Bodies are complete here; the writer stores at most its configured body limit of each and
/// marks the row truncated.
public struct JournalEntry: Sendable {
    /// When the request arrived (UTC, ISO 8601 with milliseconds).
    public var time: String
    public var tenant: TenantID
    public var method: String
    /// The request-target as received.
    public var url: String
    /// Request headers as a JSON object text (see ``JSONText/object(_:)``).
    public var requestHeaders: String
    public var requestBody: [UInt8]
    public var status: Int
    /// Response headers as a JSON object text.
    public var responseHeaders: String
    public var responseBody: [UInt8]
    public var answeredBy: AnsweredBy
    /// The mock that answered, when `answeredBy == .mock`.
    public var mockHit: MockHitRecord?
    /// Milliseconds from the request's arrival to its response, any delay included.
    public var durationMs: Double

    public init(
        time: String, tenant: TenantID, method: String, url: String, requestHeaders: String,
        requestBody: [UInt8], status: Int, responseHeaders: String, responseBody: [UInt8],
        answeredBy: AnsweredBy, mockHit: MockHitRecord?, durationMs: Double
    ) {
        self.time = time
        self.tenant = tenant
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.answeredBy = answeredBy
        self.mockHit = mockHit
        self.durationMs = durationMs
    }
}

/// A mock's served response, to be written to its row with the journal entry.
public struct MockHitRecord: Sendable {
    public var mockID: Int64
    /// The hit used up the mock's limit: its row is deleted.
    public var exhausted: Bool

    public init(mockID: Int64, exhausted: Bool) {
        self.mockID = mockID
        self.exhausted = exhausted
    }
}
