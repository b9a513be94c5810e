import Foundation
@_spi(Server) import CatbirdWire

extension Catbird {
    /// Waits until a request of the caller's tenant matching `pattern` is in the journal, and
    /// returns its entry: for fire-and-forget requests (analytics, logging) that the app sends
    /// some time after the step that triggers them.
    ///
    /// `POST /catbird/api/requests/wait` (docs/protocol.md, Waiting for a request): the server
    /// answers at once with the first matching entry after `since`, already journaled or not,
    /// else holds the call (without holding a thread) until one arrives or `timeout` passes.
    /// Matching follows the mocks' rules (method, URL, header and body patterns).
    ///
    /// - Parameters:
    ///   - pattern: the request to wait for.
    ///   - timeout: how long the server waits, in seconds (0...300; default 5).
    ///   - since: a journal entry id: only entries after it count (default: the whole journal;
    ///     pass the id of an entry already handled to wait for the next one).
    /// - Returns: the first matching journal entry after `since`.
    /// - Throws: ``CatbirdError`` 408 when none arrived in time, its `failureReason` listing what
    ///   did arrive (up to 20 entries); 400 for an invalid pattern or timeout (a timeout that is
    ///   not finite, such as `.infinity` or `.nan`, is refused by the client, its reason naming
    ///   it); `URLError` on a transport failure.
    @_disfavoredOverload
    public func waitForRequest(matching pattern: RequestPattern, timeout: TimeInterval = 5, since: Int64? = nil) throws -> CatbirdRequest {
        try perform(APICall.waitForRequest(pattern, timeout: timeout, since: since))
    }

    /// Waits until a request matching the mock's pattern is in the journal; see the
    /// `RequestPattern` form.
    @_disfavoredOverload
    public func waitForRequest(
        matching mock: any CatbirdMockConvertible, timeout: TimeInterval = 5, since: Int64? = nil
    ) throws -> CatbirdRequest {
        try waitForRequest(matching: mock.pattern, timeout: timeout, since: since)
    }

    /// Waits until a request of the caller's tenant matching `pattern` is in the journal; see
    /// the synchronous form. Cancelling the task cancels the wait (`URLError(.cancelled)`).
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func waitForRequest(
        matching pattern: RequestPattern, timeout: TimeInterval = 5, since: Int64? = nil
    ) async throws -> CatbirdRequest {
        try await perform(APICall.waitForRequest(pattern, timeout: timeout, since: since))
    }

    /// Waits until a request matching the mock's pattern is in the journal; see the
    /// synchronous `RequestPattern` form. Runs on the caller's actor (`nonisolated(nonsending)`)
    /// until it has read the mock's pattern, so a mock that is not `Sendable` is never sent to
    /// another isolation domain (tester finding T18C-F3).
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    nonisolated(nonsending)
    public func waitForRequest(
        matching mock: any CatbirdMockConvertible, timeout: TimeInterval = 5, since: Int64? = nil
    ) async throws -> CatbirdRequest {
        try await waitForRequest(matching: mock.pattern, timeout: timeout, since: since)
    }
}

#if canImport(XCTest)
extension Catbird.TestTenant {
    /// Waits until a request of this test's tenant matching `pattern` is in the journal; see
    /// ``Catbird/waitForRequest(matching:timeout:since:)-(RequestPattern,_,_)``.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    public func waitForRequest(
        matching pattern: RequestPattern, timeout: TimeInterval = 5, since: Int64? = nil
    ) async throws -> CatbirdRequest {
        try await catbird.waitForRequest(matching: pattern, timeout: timeout, since: since)
    }

    /// Waits until a request matching the mock's pattern is in this test's journal. Runs on
    /// the caller's actor (`nonisolated(nonsending)`) until it has read the mock's pattern, so
    /// a mock that is not `Sendable` is never sent to another isolation domain.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    nonisolated(nonsending)
    public func waitForRequest(
        matching mock: any CatbirdMockConvertible, timeout: TimeInterval = 5, since: Int64? = nil
    ) async throws -> CatbirdRequest {
        try await catbird.waitForRequest(matching: mock.pattern, timeout: timeout, since: since)
    }
}
#endif

/// The longest `waitForRequest` timeout the server accepts, in seconds (docs/protocol.md).
private let maximumWaitTimeout = 300

extension APICall where Output == CatbirdRequest {
    /// `POST /catbird/api/requests/wait` with `{"pattern": …, "timeout": seconds, "since": id}`,
    /// allowed 10 seconds more than `timeout` to answer.
    ///
    /// Refused (``APICall/refusal``: 400, nothing sent) when `timeout` is not finite
    /// (`.infinity`, `.nan`): JSON has no such number (tester finding tester22a-F13: the server
    /// was sent -1 and named that instead).
    static func waitForRequest(_ pattern: RequestPattern, timeout: TimeInterval, since: Int64?) -> APICall {
        let path = ["catbird", "api", "requests", "wait"]
        guard timeout.isFinite else {
            return APICall.json("POST", path) { (entry: CatbirdRequest) in entry }.refused(CatbirdError(refusal: """
                'timeout' must be a number of seconds from 0 to \(maximumWaitTimeout), not \(timeout) \
                (refused by the client, nothing sent; to wait longer, call waitForRequest again with `since`)
                """))
        }
        // A pattern holds only strings, and the numbers are finite, which JSONEncoder always encodes.
        let body = CatbirdJSON.encodeKnownEncodable(CatbirdWaitRequest(pattern: pattern, timeout: timeout, since: since))
        var call = APICall.json("POST", path, body: body) { (entry: CatbirdRequest) in entry }
            .refused(APICall.refusal(of: pattern))
        call.timeout = max(0, timeout) + 10
        return call
    }
}
