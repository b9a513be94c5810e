import CatbirdWire

extension ResponseMock {
    /// The number of responses this mock serves: `nil` when unlimited, otherwise
    /// `max(limit, 1)`, because Catbird 0.11 serves a mock with `limit <= 0` once
    /// (docs/protocol.md#control-actions).
    public var effectiveLimit: Int? {
        limit.map { max($0, 1) }
    }
}
