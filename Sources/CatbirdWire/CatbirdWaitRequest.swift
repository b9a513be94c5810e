import Foundation

/// The body of `POST /catbird/api/requests/wait` (docs/protocol.md#waiting-for-a-request):
/// `{"pattern": RequestPattern, "timeout": 5, "since": 0}`.
@_spi(Server) public struct CatbirdWaitRequest: Codable, Sendable {
    /// The request to wait for (the mocks' matching rules).
    public var pattern: RequestPattern
    /// How long to wait, in seconds (0...300); 5 when missing.
    public var timeout: Double?
    /// Only journal entries after this id count; 0 (the whole journal) when missing.
    public var since: Int64?

    /// A wait request.
    public init(pattern: RequestPattern, timeout: Double?, since: Int64?) {
        self.pattern = pattern
        self.timeout = timeout
        self.since = since
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case pattern, timeout, since
    }

    /// Reads the body.
    ///
    /// - Throws: `DecodingError` for a missing `pattern`, a field of the wrong type, or an
    ///   unknown key when refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        pattern = try container.decode(RequestPattern.self, forKey: .pattern)
        timeout = try container.decodeIfPresent(Double.self, forKey: .timeout)
        since = try container.decodeIfPresent(Int64.self, forKey: .since)
    }
}
