import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Catbird {
    /// Sends a mock change (`POST /catbird/api/mocks`) to the caller's tenant.
    ///
    /// - Parameters:
    ///   - action: the change: ``CatbirdAction/add(_:)``, ``CatbirdAction/update(_:_:)``,
    ///     `.remove(_:)` or ``CatbirdAction/removeAll``.
    ///   - completion: called once, on the session's delegate queue (the main queue for
    ///     ``Catbird/session``), with nil on success, ``CatbirdError`` when the server refuses
    ///     the change (such as 400 for an invalid regular expression), or the `URLError` of a
    ///     transport failure.
    /// - Returns: the running task (already resumed).
    @discardableResult
    public func send(_ action: CatbirdAction, completion: @escaping @Sendable ((any Error)?) -> Void) -> URLSessionTask {
        start(APICall.send(action), parallelId: parallelId, on: session) { result in
            switch result {
            case .success: completion(nil)
            case let .failure(error): completion(error)
            }
        }
    }

    /// Sends a mock change (`POST /catbird/api/mocks`) and waits for the server to commit it.
    ///
    /// Blocks the calling thread; safe on the main thread, in `@MainActor` code and inside
    /// main-queue blocks with a session that delivers on the main queue (see ``Catbird``).
    ///
    /// - Parameter action: the change.
    /// - Throws: ``CatbirdError`` when the server refuses the change (such as 400 for an
    ///   invalid regular expression), `URLError` on a transport failure or timeout.
    public func send(_ action: CatbirdAction) throws {
        try perform(APICall.send(action))
    }
}

extension APICall where Output == Void {
    /// `POST /catbird/api/mocks` with the action's JSON.
    static func send(_ action: CatbirdAction) -> APICall {
        // An action holds only strings, integers and bytes, which JSONEncoder always encodes
        // (it fails only for non-finite floating-point numbers).
        let body = CatbirdJSON.encodeKnownEncodable(action)
        return .ignoringAnswer("POST", ["catbird", "api", "mocks"], body: body)
    }
}
