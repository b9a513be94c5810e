import Foundation

/// One journaled request as read back (the JSON shape of `GET /catbird/api/requests`).
public struct JournalRecord: Sendable, Codable, Equatable {
    /// One side of the exchange: headers and body.
    public struct Message: Sendable, Codable, Equatable {
        /// Response status; absent on the request side.
        public var status: Int?
        /// Header fields, name → value. A repeated name's values are joined with ", " here
        /// (RFC 9110 §5.3), keeping this shape stable; the database's `request_headers` and
        /// `response_headers` columns hold them as a JSON array instead (see
        /// ``JSONText/object(_:)``).
        public var headers: [String: String]
        /// The stored body as UTF-8 text, or nil when empty or not valid UTF-8.
        public var body: String?
        /// The stored body, standard base64; nil when empty.
        public var bodyBase64: String?
        /// The full body size in bytes (the stored body may be shorter, see `bodyTruncated`).
        public var bodySize: Int
        /// True when only the first bytes of the body were kept (journal body limit).
        public var bodyTruncated: Bool
    }

    public var id: Int64
    /// UTC, ISO 8601 with milliseconds.
    public var time: String
    /// The parallel id; "" for the default tenant.
    public var tenant: String
    public var method: String
    /// The request-target as received.
    public var url: String
    public var request: Message
    public var response: Message
    public var answeredBy: AnsweredBy
    /// The mock that answered (it may since be gone); nil, encoded as JSON `null`, when no
    /// mock answered.
    public var mockId: Int64?
    /// Milliseconds from arrival to response, any delay included.
    public var durationMs: Double

    private enum CodingKeys: String, CodingKey {
        case id, time, tenant, method, url, request, response, answeredBy, mockId, durationMs
    }

    /// Encodes every field under its property name; `mockId` is always present, `null` when no
    /// mock answered (the synthesized encoding would leave it out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(time, forKey: .time)
        try container.encode(tenant, forKey: .tenant)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(request, forKey: .request)
        try container.encode(response, forKey: .response)
        try container.encode(answeredBy, forKey: .answeredBy)
        if let mockId {
            try container.encode(mockId, forKey: .mockId)
        } else {
            try container.encodeNil(forKey: .mockId)
        }
        try container.encode(durationMs, forKey: .durationMs)
    }
}
