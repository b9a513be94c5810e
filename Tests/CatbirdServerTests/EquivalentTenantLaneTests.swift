import CatbirdDomain
import CatbirdHTTP
import Dispatch
import XCTest

@testable import CatbirdServer

/// The control lanes' per-tenant queues (``HTTPWorkPool`` keyed by ``TenantID``) and the
/// parked calls' looks (``SerialLooks``) keep two canonically equivalent ids apart, as every
/// other per-tenant table does (docs/tenancy.md#tenant-of-a-request): NFC `café` and NFD
/// `cafe\u{301}` are equal Swift `String`s but two tenants, so one's running job never holds
/// the other's back. Each test first shows that the same id's second job does wait (the
/// per-tenant limit is in force), so the other id's job running is the keys' doing.
final class EquivalentTenantLaneTests: XCTestCase {
    private let a = TenantID("caf\u{E9}")
    private let b = TenantID("cafe\u{301}")
    /// How long a job that should run may take to start on a loaded machine (not a speed bound).
    private var startLimit: DispatchTime { .now() + .seconds(30) }

    func testTheIdsAreEquivalentStringsButTwoTenants() {
        XCTAssertEqual(a.rawValue, b.rawValue, "canonically equivalent (Swift ==)")
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a, TenantID(String(decoding: Array("caf\u{E9}".utf8), as: UTF8.self)))
        XCTAssertEqual(Set([a, b, TenantID("caf\u{E9}")]).count, 2)
    }

    func testWorkPoolRunsAnEquivalentIdsJobWhileTheOtherIdsJobHoldsItsOnlyPlace() {
        let pool = HTTPWorkPool<TenantID>(threadCount: 2, perKeyLimit: 1, name: "test-equivalent-lanes")
        defer { pool.stop() }
        assertBRunsWhileAHolds("job", runA: { pool.run(key: a, $0) }, runB: { pool.run(key: b, $0) })
    }

    func testSerialLooksRunAnEquivalentIdsLookWhileTheOtherIdsLookRuns() {
        let pools = ControlPools()
        defer { pools.stop() }
        let looks = SerialLooks()
        guard let laneA = pools.lane(.slow, for: a), let laneB = pools.lane(.slow, for: b) else {
            return XCTFail("the slow lane has a pool")
        }
        assertBRunsWhileAHolds("look", runA: { looks.run(on: laneA, $0) }, runB: { looks.run(on: laneB, $0) })
    }

    /// a's first `what` blocks until released; then a's second and b's first are queued: b's
    /// runs meanwhile, a's second only once a's first has ended.
    private func assertBRunsWhileAHolds(
        _ what: String, runA: (@escaping @Sendable () -> Void) -> Void, runB: (@escaping @Sendable () -> Void) -> Void
    ) {
        let release = DispatchSemaphore(value: 0)
        let aStarted = DispatchSemaphore(value: 0)
        let secondAStarted = DispatchSemaphore(value: 0)
        let bStarted = DispatchSemaphore(value: 0)
        runA {
            aStarted.signal()
            release.wait()
        }
        XCTAssertEqual(aStarted.wait(timeout: startLimit), .success)
        runA { secondAStarted.signal() }
        runB { bStarted.signal() }
        XCTAssertEqual(bStarted.wait(timeout: startLimit), .success, "b's \(what) ran while a's first held a's place")
        XCTAssertEqual(secondAStarted.wait(timeout: .now()), .timedOut, "a's second \(what) waits behind a's first")
        release.signal()
        XCTAssertEqual(secondAStarted.wait(timeout: startLimit), .success)
    }
}
