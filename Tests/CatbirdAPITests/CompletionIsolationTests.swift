import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `send(_:completion:)` runs a closure made on an actor on that actor, whatever queue the
/// session delivers on (tester finding T18C-F6: with a background-queue session, the closure a
/// `@MainActor` test made, which Swift 6 lets touch main-actor state, ran on a background thread).
@MainActor
final class CompletionIsolationTests: CatbirdTestCase {
    private var sent = 0

    func testMainActorClosureRunsOnMainActorWithBackgroundSession() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        XCTAssertFalse(session.delegateQueue === OperationQueue.main)
        let catbird = server.catbird("t18c-iso", session: session)
        let done = expectation(description: "sent")
        catbird.send(.removeAll) { error in
            XCTAssertNil(error)
            XCTAssertTrue(Thread.isMainThread, "a @MainActor caller's closure runs on the main actor")
            dispatchPrecondition(condition: .onQueue(.main))
            MainActor.assertIsolated()
            self.sent += 1
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(sent, 1)
    }

    func testActorClosureRunsOnThatActorWithBackgroundSession() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let probe = CompletionProbe()
        await probe.send(server.catbird("t18c-iso-actor", session: session))
        var calls = 0
        for _ in 0..<300 where calls == 0 {
            try await Task.sleep(nanoseconds: 100_000_000)
            calls = await probe.calls
        }
        XCTAssertEqual(calls, 1)
    }
}

/// An actor that sends with a completion closure touching its own state.
private actor CompletionProbe {
    private(set) var calls = 0

    func send(_ catbird: Catbird) {
        catbird.send(.removeAll) { error in
            self.assertIsolated("the closure runs on the actor that made it")
            if error == nil { self.calls += 1 }
        }
    }
}
