import CatbirdSupport

/// The body of every failure answer: `{"error": true, "reason": "…"}` (docs/protocol.md#errors).
@_spi(Server) public struct CatbirdErrorBody: Codable, Sendable, Equatable {
    /// Always true.
    public var error: Bool
    /// What went wrong, in words a user understands.
    public var reason: String

    /// A failure body with this reason.
    public init(reason: String) {
        error = true
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey {
        case error, reason
    }

    /// Reads the body; a missing `error` reads as true (only `reason` is needed).
    ///
    /// - Throws: `DecodingError` when `reason` is missing or not a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        error = try container.decodeIfPresent(Bool.self, forKey: .error) ?? true
        reason = try container.decode(String.self, forKey: .reason)
    }

    /// The body as compact JSON text, `{"error":true,"reason":"…"}`, built without an encoder.
    public var json: String {
        "{\"error\":true,\"reason\":\(JSONText.string(reason))}"
    }
}

/// The body of `POST /catbird/api/requests/count`: `{"pattern": RequestPattern}`.
@_spi(Server) public struct CatbirdCountRequest: Codable, Sendable {
    /// Which journaled requests to count (the mocks' matching rules).
    public var pattern: RequestPattern

    /// A count request for `pattern`.
    public init(pattern: RequestPattern) {
        self.pattern = pattern
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case pattern
    }

    /// Reads the body.
    ///
    /// - Throws: `DecodingError` as ``RequestPattern`` does, or for an unknown key when
    ///   refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        pattern = try container.decode(RequestPattern.self, forKey: .pattern)
    }
}
