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
    ///     ``Catbird/session``, as in Catbird 0.11), with nil on success, ``CatbirdError`` when
    ///     the server refuses the change (such as 400 for an invalid regular expression), or the
    ///     `URLError` of a transport failure. Not `@Sendable`, as in 0.11: a closure may touch
    ///     main-actor state (a test case, a view model) when the session delivers on the main
    ///     queue. Do not wait for it with a semaphore on the main thread: the main queue could
    ///     then never run it (a deadlock, as in 0.11); use an `XCTestExpectation`, or the
    ///     synchronous `send(_:)`.
    /// - Returns: the running task (already resumed).
    @discardableResult
    public func send(_ action: CatbirdAction, completion: @escaping (Error?) -> Void) -> URLSessionTask {
        let handler = CompletionHandler(completion)
        let onMainQueue = sessions.isDefault
        return start(APICall.send(action), parallelId: parallelId, on: sessions.completionSession) { result in
            let error: (any Error)? = switch result {
            case .success: nil
            case let .failure(error): error
            }
            // A client made without a session calls back where `Catbird.session` would: on the
            // main queue (its calls run on a background session; see `init(url:parallelId:)`).
            if onMainQueue {
                DispatchQueue.main.async { handler.call(error) }
            } else {
                handler.call(error)
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

/// The completion closure of ``Catbird/send(_:completion:)``, handed to the session's callback.
private struct CompletionHandler: @unchecked Sendable {
    // @unchecked Sendable: the closure is not `@Sendable` (Catbird 0.11's signature, which lets
    // it touch the caller's main-actor state). It is called exactly once, from the session's
    // completion handler on the session's delegate queue, which the caller chose with the
    // session (the main queue for `Catbird.session`), so it runs where 0.11 ran it; nothing else
    // calls or keeps it.
    let closure: (Error?) -> Void

    init(_ closure: @escaping (Error?) -> Void) {
        self.closure = closure
    }

    func call(_ error: Error?) {
        closure(error)
    }
}

extension APICall where Output == Void {
    /// `POST /catbird/api/mocks` with the action's JSON.
    static func send(_ action: CatbirdAction) -> APICall {
        // An action holds only strings, integers and bytes, which JSONEncoder always encodes
        // (it fails only for non-finite floating-point numbers).
        let body = CatbirdJSON.encodeKnownEncodable(action)
        var call = APICall.ignoringAnswer("POST", ["catbird", "api", "mocks"], body: body)
        call.isAdminForDefaultTenant = true
        return call
    }
}
