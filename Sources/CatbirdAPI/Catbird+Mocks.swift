@_spi(Server) import CatbirdWire
import Foundation

extension Catbird {
    /// The caller's tenant's mocks in match order (`GET /catbird/api/mocks`). The default
    /// tenant's mocks, which also answer a shard's requests, are not included for a shard.
    ///
    /// - Returns: the mocks, first match first.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer.
    @_disfavoredOverload
    public func mocks() throws -> [CatbirdMock] {
        try perform(APICall.mocks)
    }

    /// The caller's tenant's mocks in match order (`GET /catbird/api/mocks`).
    ///
    /// - Returns: the mocks, first match first.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation,
    ///   ``CatbirdError`` for an unreadable answer.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func mocks() async throws -> [CatbirdMock] {
        try await perform(APICall.mocks)
    }
}

extension APICall where Output == [CatbirdMock] {
    /// `GET /catbird/api/mocks`.
    static var mocks: APICall {
        .json("GET", ["catbird", "api", "mocks"]) { (list: CatbirdMockList) in list.mocks }
    }
}
