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
    ///   - isolation: the caller's actor (`#isolation`, filled in by the compiler); leave it out.
    ///   - completion: called once with nil on success, ``CatbirdError`` when the server
    ///     refuses the change (such as 400 for an invalid regular expression), or the `URLError`
    ///     of a transport failure. Called on the caller's actor when the caller runs on one (a
    ///     `@MainActor` test: the main actor, whatever queue the session delivers on; tester
    ///     finding T18C-F6), since a closure made there may touch that actor's state; else on
    ///     the session's delegate queue (the main queue for ``Catbird/session`` and for a client
    ///     made without a session, as in Catbird 0.11). Not `@Sendable`, as in 0.11. Do not
    ///     wait for it with a semaphore on the main thread: the main queue could then never run
    ///     it (a deadlock, as in 0.11); use an `XCTestExpectation`, or the synchronous `send(_:)`.
    ///     Because it is not `@Sendable`, Swift 6 does not check what it captures: called from
    ///     a caller with no actor (a plain `async` XCTest method, a background thread), it runs
    ///     on the delegate queue while the caller goes on, so a `var` both touch is a data race
    ///     the compiler accepts (tester finding tester48c-F4, seen with ThreadSanitizer). There,
    ///     use the synchronous `send(_:)`, or keep such state behind a lock or on an actor.
    /// - Returns: the running task (already resumed).
    @discardableResult
    public func send(
        _ action: CatbirdAction, isolation: isolated (any Actor)? = #isolation, completion: @escaping (Error?) -> Void
    ) -> URLSessionTask {
        let delivery = CompletionDelivery(closure: completion, actor: isolation, onMainQueue: sessions.isDefault)
        return start(APICall.send(action), parallelId: parallelId, on: sessions.completionSession) { result in
            switch result {
            case .success: delivery.deliver(nil)
            case let .failure(error): delivery.deliver(error)
            }
        }
    }

    /// Sends a mock change (`POST /catbird/api/mocks`) and waits for the server to commit it.
    ///
    /// Blocks the calling thread; safe on the main thread, in `@MainActor` code and inside
    /// main-queue blocks with a session that delivers on the main queue (see ``Catbird``).
    ///
    /// The server's warnings of a mock it accepts but can never serve (an equal URL without its
    /// leading `/`, a catch-all added before it: README.md) are written to standard error, one
    /// line each starting `Catbird: the server warns about`, by both forms of `send`.
    ///
    /// - Parameter action: the change.
    /// - Throws: ``CatbirdError`` when the server refuses the change (such as 400 for an
    ///   invalid regular expression), `URLError` on a transport failure or timeout.
    public func send(_ action: CatbirdAction) throws {
        try perform(APICall.send(action))
    }
}

/// The completion closure of ``Catbird/send(_:isolation:completion:)`` and where it runs.
private struct CompletionDelivery: @unchecked Sendable {
    // @unchecked Sendable: the closure is not `@Sendable` (Catbird 0.11's signature, which lets
    // it touch the caller's state). It is called exactly once, by `deliver`, and only where its
    // caller's isolation allows: on `actor`, the actor the caller ran on when it made the
    // closure (the main actor by way of the main queue, another actor by a task isolated to
    // it); with no actor, on the main queue for a client made without a session, else on the
    // session's delegate queue that the caller chose with the session, where 0.11 ran it.
    // Nothing else calls or keeps it.
    let closure: (Error?) -> Void
    let actor: (any Actor)?
    let onMainQueue: Bool

    /// Runs the closure with `error` where it belongs (see above).
    func deliver(_ error: Error?) {
        if let actor, actor !== MainActor.shared {
            Task { await Self.run(self, error, on: actor) }
        } else if actor != nil || onMainQueue, !Thread.isMainThread {
            DispatchQueue.main.async { closure(error) }
        } else {
            closure(error)
        }
    }

    /// Runs `delivery`'s closure on `actor`.
    private static func run(_ delivery: CompletionDelivery, _ error: Error?, on actor: isolated any Actor) {
        delivery.closure(error)
    }
}

extension APICall where Output == Void {
    /// `POST /catbird/api/mocks` with the action's JSON.
    static func send(_ action: CatbirdAction) -> APICall {
        // An action holds only strings, integers and bytes, which JSONEncoder always encodes
        // (it fails only for non-finite floating-point numbers).
        let body = CatbirdJSON.encodeKnownEncodable(action)
        // 201 for `update` (with `{"warnings": […]}` or empty), 204 for `remove` and `removeAll`.
        var call = APICall.ignoringAnswer("POST", ["catbird", "api", "mocks"], body: body, statuses: [201, 204])
            .refused(APICall.refusal(of: action.changedPattern))
        // The server's warnings of a mock that can never be served (no leading '/', a catch-all
        // added before it) are written to standard error, as Catbird 0.11's signature has no
        // place for them: they reached only the server's log, which a test author on a shared
        // CI host does not read (tester finding tester57b-F10).
        call.decode = { data in Self.reportWarnings(in: data, of: action.changedPattern) }
        call.isAdminForDefaultTenant = true
        return call
    }
}

extension APICall where Output == Void {
    /// Writes each of the `warnings` of an `update`'s 201 body (`{"warnings": ["…"]}`) to
    /// standard error, one line each, `Catbird: the server warns about the mock for GET /x: …`;
    /// nothing for an empty body or one without warnings.
    static func reportWarnings(in data: Data, of pattern: RequestPattern?) {
        guard !data.isEmpty, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let warnings = object["warnings"] as? [String], !warnings.isEmpty
        else { return }
        let mock = pattern.map { "the mock for \($0.method.rawValue) \($0.url.value)" } ?? "the change"
        let lines = warnings.map { "Catbird: the server warns about \(mock): \($0)\n" }.joined()
        FileHandle.standardError.write(Data(lines.utf8))
    }
}

extension CatbirdAction {
    /// The pattern the action adds or removes; nil for `removeAll`.
    fileprivate var changedPattern: RequestPattern? {
        switch self {
        case let .update(pattern, _), let .remove(pattern): pattern
        case .removeAll: nil
        }
    }
}
