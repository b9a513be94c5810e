import CatbirdSupport
import Foundation

/// A mock as the server holds it (`GET /catbird/api/mocks`), listed by `Catbird.mocks()`.
public struct CatbirdMock: Codable, Hashable, Sendable {
    /// The mock's id (a mock replaced by an `update` gets a new id in the same position).
    public var id: Int64

    /// Its place in match order within the tenant (ascending; the first match wins).
    public var position: Int64

    /// Which requests it answers.
    public var pattern: RequestPattern

    /// What it answers with; `limit` here is the remaining limit.
    public var response: ResponseMock

    /// How many more responses it serves before it is removed; nil for unlimited.
    public var remainingLimit: Int?

    /// How many responses it has served.
    public var hits: Int

    /// When it was added (the server's clock, millisecond precision). On the wire: ISO 8601
    /// UTC text, `2026-11-29T18:01:27.123Z`.
    public var createdAt: Date

    /// A mock as listed (the server builds these).
    ///
    /// - Parameters:
    ///   - id: the mock's id.
    ///   - position: its place in match order.
    ///   - pattern: which requests it answers.
    ///   - response: what it answers with, `limit` set to the remaining limit.
    ///   - remainingLimit: responses left; nil for unlimited.
    ///   - hits: responses served.
    ///   - createdAt: when it was added.
    @_spi(Server) public init(
        id: Int64, position: Int64, pattern: RequestPattern, response: ResponseMock, remainingLimit: Int?, hits: Int,
        createdAt: Date
    ) {
        self.id = id
        self.position = position
        self.pattern = pattern
        self.response = response
        self.remainingLimit = remainingLimit
        self.hits = hits
        self.createdAt = createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, position, pattern, response, remainingLimit, hits, createdAt
    }

    /// Reads the server's shape.
    ///
    /// - Throws: `DecodingError` for a missing field, a wrong type or a malformed `createdAt`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        position = try container.decode(Int64.self, forKey: .position)
        pattern = try container.decode(RequestPattern.self, forKey: .pattern)
        response = try container.decode(ResponseMock.self, forKey: .response)
        remainingLimit = try container.decodeIfPresent(Int.self, forKey: .remainingLimit)
        hits = try container.decode(Int.self, forKey: .hits)
        createdAt = try Timestamp.decode(.createdAt, from: container)
    }

    /// Writes the server's shape (`remainingLimit` as `null` when unlimited).
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(position, forKey: .position)
        try container.encode(pattern, forKey: .pattern)
        try container.encode(response, forKey: .response)
        try container.encode(remainingLimit, forKey: .remainingLimit)
        try container.encode(hits, forKey: .hits)
        try container.encode(Timestamp.string(from: createdAt), forKey: .createdAt)
    }
}

/// The answer of `GET /catbird/api/mocks`: `{"tenant": "<parallel id>", "mocks": [CatbirdMock]}`,
/// the mocks in match order.
@_spi(Server) public struct CatbirdMockList: Codable, Sendable {
    /// The caller's parallel id; `""` for the default tenant.
    public var tenant: String
    /// The tenant's mocks in match order.
    public var mocks: [CatbirdMock]

    /// A listing of `mocks` for `tenant`.
    public init(tenant: String, mocks: [CatbirdMock]) {
        self.tenant = tenant
        self.mocks = mocks
    }
}
