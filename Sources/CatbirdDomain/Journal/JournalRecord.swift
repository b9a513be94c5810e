import Foundation

/// One journaled request as read back (the JSON shape of `GET /catbird/api/requests`).
public struct JournalRecord: Sendable, Codable, Equatable {
    /// One side of the exchange: headers and body.
    public struct Message: Sendable, Codable, Equatable {
        /// Response status; absent on the request side.
        public var status: Int?
        /// Header fields; repeated names were joined with ", ".
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
    /// The mock that answered (it may since be gone).
    public var mockId: Int64?
    /// Milliseconds from arrival to response, any delay included.
    public var durationMs: Double
}
