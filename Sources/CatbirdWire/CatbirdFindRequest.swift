import Foundation

/// The body of `POST /catbird/api/requests/find` (docs/protocol.md#find):
/// `{"pattern": RequestPattern, "since": id, "before": id, "from": time, "until": time, "limit": n, "bodies": bool,
/// "order": "oldest" | "newest"}`,
/// everything but `pattern` optional. Times are UTC ISO 8601 text, `2026-11-30T18:31:34.225Z`.
@_spi(Server) public struct CatbirdFindRequest: Codable, Sendable {
    /// Which journaled requests to find (the mocks' matching rules, body included).
    public var pattern: RequestPattern
    /// Only entries with an id greater than this (a page's `nextSince`).
    public var since: Int64?
    /// Only entries with an id less than this.
    public var before: Int64?
    /// Only entries answered at or after this time.
    public var from: String?
    /// Only entries answered before this time.
    public var until: String?
    /// Page size, 1 to 1000 (100 when missing).
    public var limit: Int?
    /// False leaves `body` and `bodyBase64` out of the entries (true when missing).
    public var bodies: Bool?
    /// `"oldest"` (when missing) or `"newest"`: the page's order, as the journal listing's
    /// `order`; newest first, a page continues with `before` set to its `nextBefore`.
    public var order: String?

    /// A find request.
    public init(
        pattern: RequestPattern, since: Int64? = nil, before: Int64? = nil, from: String? = nil, until: String? = nil,
        limit: Int? = nil, bodies: Bool? = nil, order: String? = nil
    ) {
        self.pattern = pattern
        self.since = since
        self.before = before
        self.from = from
        self.until = until
        self.limit = limit
        self.bodies = bodies
        self.order = order
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case pattern, since, before, from, until, limit, bodies, order
    }

    /// Reads the body.
    ///
    /// - Throws: `DecodingError` for a missing `pattern`, a field of the wrong type, or an
    ///   unknown key when refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        pattern = try container.decode(RequestPattern.self, forKey: .pattern)
        since = try container.decodeIfPresent(Int64.self, forKey: .since)
        before = try container.decodeIfPresent(Int64.self, forKey: .before)
        from = try container.decodeIfPresent(String.self, forKey: .from)
        until = try container.decodeIfPresent(String.self, forKey: .until)
        limit = try container.decodeIfPresent(Int.self, forKey: .limit)
        bodies = try container.decodeIfPresent(Bool.self, forKey: .bodies)
        order = try container.decodeIfPresent(String.self, forKey: .order)
    }
}
