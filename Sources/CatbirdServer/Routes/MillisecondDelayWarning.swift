import CatbirdWire

/// A mock's `response.delay` of 1,000 or more: in whole seconds (Catbird 0.11), such a delay is
/// a quarter of an hour or more, most likely milliseconds as WireMock's
/// `fixedDelayMilliseconds` and MockServer's `delay` take them (tester finding tester54a-F2:
/// `"delay": 1500` got a bare 201, and the request then waited 25 minutes). The mock is kept as
/// sent (a long delay is legal, up to a day); the 201 says what was likely meant, as for mocks
/// that can never match (docs/protocol.md#mocks-that-can-never-match).
enum MillisecondDelayWarning {
    /// The smallest delay warned about, in seconds: 1,000 (16 minutes 40 seconds).
    static let threshold = 1000

    /// The warning for `response`, or nil when its delay is under ``threshold`` seconds (or none).
    static func warning(for response: ResponseMock) -> String? {
        guard let delay = response.delay, delay >= threshold else { return nil }
        let minutes = delay / 60
        let meant = max(1, (delay + 500) / 1000)
        return "'response.delay' \(delay) is in whole seconds (\(minutes) minutes: each request this mock answers waits that long); "
            + "if it is milliseconds, as WireMock's fixedDelayMilliseconds and MockServer's delay are, send \(meant)"
    }
}
