@_spi(Server) import CatbirdWire
import Foundation

extension Catbird {
    /// How many journaled requests of the caller's tenant match `pattern`, by the same rules
    /// as mocks (`POST /catbird/api/requests/count`).
    ///
    /// A body pattern matches the body the journal kept (`--journal-body-limit`, 64 KiB by
    /// default): a request whose body was cut before what the pattern looks for is not counted,
    /// and this count does not say so; ``find(matching:since:from:until:limit:)``'s
    /// `cutBodyMatches` and ``assertRequested(_:times:file:line:)`` do (tester finding tester57b-F2).
    ///
    /// - Parameter pattern: the method, URL, header and body patterns to match, by the mocks'
    ///   rules.
    /// - Returns: the number of matching requests.
    /// - Throws: ``CatbirdError`` (400 for an invalid regular expression, or one too slow to
    ///   evaluate within 2 seconds), `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer.
    @_disfavoredOverload
    public func count(matching pattern: RequestPattern) throws -> Int {
        try perform(APICall.count(pattern))
    }

    /// How many journaled requests of the caller's tenant match the mock's pattern.
    ///
    /// - Parameter mock: the mock whose ``CatbirdMockConvertible/pattern`` to match.
    /// - Returns: the number of matching requests.
    /// - Throws: as the `RequestPattern` form.
    @_disfavoredOverload
    public func count(matching mock: any CatbirdMockConvertible) throws -> Int {
        try count(matching: mock.pattern)
    }

    /// How many journaled requests of the caller's tenant match `pattern`
    /// (`POST /catbird/api/requests/count`).
    ///
    /// - Parameter pattern: the method, URL, header and body patterns to match, by the mocks'
    ///   rules.
    /// - Returns: the number of matching requests.
    /// - Throws: ``CatbirdError`` (400 for an invalid or too slow regular expression),
    ///   `URLError` on a transport failure or cancellation, ``CatbirdError`` for an unreadable answer.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func count(matching pattern: RequestPattern) async throws -> Int {
        try await perform(APICall.count(pattern))
    }

    /// How many journaled requests of the caller's tenant match the mock's pattern.
    ///
    /// Runs on the caller's actor (`nonisolated(nonsending)`) until it has read the mock's
    /// pattern, so a mock that is not `Sendable` (a parameter or property of a `@MainActor`
    /// test class) is never sent to another isolation domain (tester finding T18C-F3).
    ///
    /// - Parameter mock: the mock whose ``CatbirdMockConvertible/pattern`` to match.
    /// - Returns: the number of matching requests.
    /// - Throws: as the `RequestPattern` form.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    nonisolated(nonsending)
    public func count(matching mock: any CatbirdMockConvertible) async throws -> Int {
        try await count(matching: mock.pattern)
    }
}

extension APICall where Output == Int {
    /// `POST /catbird/api/requests/count` with `{"pattern": …}` → `{"count": n}`.
    static func count(_ pattern: RequestPattern) -> APICall {
        APICall<CatbirdCountAnswer>.countAnswer(pattern).map { $0.count }
    }
}

extension APICall where Output == CatbirdCountAnswer {
    /// `POST /catbird/api/requests/count` with `{"pattern": …}` → the whole answer: the count,
    /// and the requests left out because the journal kept only part of their body.
    static func countAnswer(_ pattern: RequestPattern) -> APICall {
        // A pattern holds only strings, which JSONEncoder always encodes.
        let body = CatbirdJSON.encodeKnownEncodable(CatbirdCountRequest(pattern: pattern))
        return APICall.json("POST", ["catbird", "api", "requests", "count"], body: body) { (answer: CatbirdCountAnswer) in answer }
            .refused(APICall.refusal(of: pattern))
    }
}
