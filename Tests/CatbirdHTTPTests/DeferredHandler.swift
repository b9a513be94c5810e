@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import Synchronization

/// A test handler: `/now` answers at once; any other path answers later, keeping its responder
/// (keyed by path) for the test to complete from where it likes. A malformed request is
/// answered within moments (``HTTPAnswer/soon(_:)``, as a strict refusal waits for its journal
/// commit) with `problem.status`, a responder that releases it (whatever it is sent) kept under
/// `refused <path>`.
final class DeferredHandler: HTTPHandler {
    let responders = Mutex<[String: HTTPResponder]>([:])

    func respond(to request: HTTPRequest) -> HTTPAnswer {
        if request.path == "/now" { return .now(HTTPResponse(status: 200, body: Array("now".utf8))) }
        let key = String(request.path)
        return .later { [self] responder in responders.withLock { $0[key] = responder } }
    }

    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
        .now(HTTPResponse(status: 413))
    }

    func respondToMalformedRequest(_ request: HTTPRequest, problem: HTTPRequestProblem) -> HTTPAnswer {
        let key = "refused \(request.path)"
        let held = HTTPHeldAnswer(HTTPResponse.error(status: problem.status, reason: problem.reason), otherwise: HTTPResponse(status: 503)) {
            [self] release in responders.withLock { $0[key] = HTTPResponder { _ in release(true) } }
        }
        return .soon(held)
    }

    /// Takes the responder of `path` out, waiting up to 10 s for its request to arrive.
    func take(_ path: String) -> HTTPResponder? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let responder = responders.withLock({ $0.removeValue(forKey: path) }) { return responder }
            usleep(1000)
        }
        return nil
    }

    /// Waits up to 10 s until `count` requests are waiting; returns how many are.
    func waitForWaiting(_ count: Int) -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let waiting = responders.withLock { $0.count }
            if waiting >= count { return waiting }
            usleep(1000)
        }
        return responders.withLock { $0.count }
    }
}

/// Polls `condition` every millisecond for up to `seconds`; returns its last value.
func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

/// Runs `body(index)` for each index on its own thread (Dispatch's pool caps how many blocking
/// clients run at once); `wait` in the returned group waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    return group
}
