import CatbirdMatching
import CatbirdSupport
import CatbirdWire

/// One dynamic mock (stub): a request pattern and the response served when it matches.
public struct Mock: Sendable {
    /// Row id in the `mocks` table. A mock replaced in place gets a new id.
    public let id: Int64
    /// The tenant whose table holds this mock.
    public let tenant: TenantID
    /// Sort key within the tenant's table: lower positions are tried first.
    public let position: Int64
    /// The request pattern, compiled when the mock was added.
    public let pattern: CompiledRequestPattern
    /// The response to serve, as sent by the client (`delay` in whole seconds).
    public let response: ResponseMock
    /// `response.headers` as header fields sorted by name, worked out once when the mock is
    /// added (serving and journaling a hit need them on every request). Sorted so that the
    /// header order sent and the journal's JSON do not depend on the dictionary's hash seed.
    /// Without `Content-Length` (the server sends the body's length itself; a mock may only
    /// set that same value, docs/protocol.md#what-the-journal-records).
    public let responseHeaderFields: [(name: String, value: String)]
    /// `response.body` as bytes (empty for none), once: what every hit sends.
    public let responseBody: [UInt8]
    /// `response.headers` as the journal's JSON object (``JSONText/object(_:)``), once.
    public let responseHeadersJSON: String
    /// ``responseHeadersJSON`` with the fields added when sent, as last journaled (shared by
    /// the copies of this mock; the hits of one second reuse it).
    public let sentHeadersJSON = JSONText.AppendingMemo()
    /// Responses left before the mock disappears; nil = unlimited.
    public internal(set) var remainingLimit: Int?
    /// Responses served so far.
    public internal(set) var hits: Int
    /// When the mock was added (UTC, ISO 8601 with milliseconds).
    public let createdAt: String
    /// `pattern.source.identity`, worked out once: the key ``MockTable`` finds the mock by
    /// for `update` and `remove`.
    let identity: RequestPattern.Identity

    init(
        id: Int64, tenant: TenantID, position: Int64, pattern: CompiledRequestPattern, response: ResponseMock,
        remainingLimit: Int?, hits: Int, createdAt: String
    ) {
        self.id = id
        self.tenant = tenant
        self.position = position
        self.pattern = pattern
        self.response = response
        responseHeaderFields = response.headers
            .filter { !$0.key.equalsIgnoringASCIICase("Content-Length") }
            .sorted { $0.key < $1.key }
            .map { (name: $0.key, value: $0.value) }
        responseHeadersJSON = JSONText.object(responseHeaderFields)
        responseBody = response.body.map { [UInt8]($0) } ?? []
        self.remainingLimit = remainingLimit
        self.hits = hits
        self.createdAt = createdAt
        identity = pattern.source.identity
    }
}

/// The outcome of serving a request from a mock.
public struct MockHit: Sendable {
    /// The mock as it stands after this hit (hits and remaining limit updated).
    public let mock: Mock
    /// True when this hit used up the mock's limit and removed it.
    public let exhausted: Bool
}
