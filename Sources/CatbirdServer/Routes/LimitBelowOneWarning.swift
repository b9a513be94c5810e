import CatbirdWire

/// A mock's `response.limit` of 0 or less: Catbird 0.11 counts it as 1, so the mock answers
/// once and is gone, while `0` and `-1` are the usual "unlimited" or "off" idioms elsewhere
/// (MockServer's `unlimited` times, many clients' -1; tester finding tester58b-F6: `"limit": -1`
/// got a bare 201, and the second request a 404). The mock is kept as sent, as 0.11 keeps it;
/// the 201 says what it does (docs/protocol.md#mocks-that-can-never-match).
enum LimitBelowOneWarning {
    /// The warning for `response`, or nil when it has no limit or a limit of 1 or more.
    static func warning(for response: ResponseMock) -> String? {
        guard let limit = response.limit, limit <= 0 else { return nil }
        return "'response.limit' \(limit) counts as 1 (Catbird 0.11's rule): this mock answers one request and is removed; "
            + "leave limit out (or null) for a mock that answers every request"
    }
}
