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
        let release = DispatchSemaphore(value: 0)
        let aStarted = DispatchSemaphore(value: 0)
        let secondAStarted = DispatchSemaphore(value: 0)
        let bStarted = DispatchSemaphore(value: 0)
        pool.run(key: a) {
            aStarted.signal()
            release.wait()
        }
        XCTAssertEqual(aStarted.wait(timeout: startLimit), .success)
        pool.run(key: a) { secondAStarted.signal() }
        pool.run(key: b) { bStarted.signal() }
        XCTAssertEqual(bStarted.wait(timeout: startLimit), .success, "b's job ran while a's held a's only place")
        XCTAssertEqual(secondAStarted.wait(timeout: .now()), .timedOut, "a's second job waits behind a's first (limit 1 per key)")
        release.signal()
        XCTAssertEqual(secondAStarted.wait(timeout: startLimit), .success)
    }

    func testSerialLooksRunAnEquivalentIdsLookWhileTheOtherIdsLookRuns() {
        let pools = ControlPools()
        defer { pools.stop() }
        let looks = SerialLooks()
        let release = DispatchSemaphore(value: 0)
        let aStarted = DispatchSemaphore(value: 0)
        let secondAStarted = DispatchSemaphore(value: 0)
        let bStarted = DispatchSemaphore(value: 0)
        guard let laneA = pools.lane(.slow, for: a), let laneB = pools.lane(.slow, for: b) else {
            return XCTFail("the slow lane has a pool")
        }
        looks.run(on: laneA) {
            aStarted.signal()
            release.wait()
        }
        XCTAssertEqual(aStarted.wait(timeout: startLimit), .success)
        looks.run(on: laneA) { secondAStarted.signal() }
        looks.run(on: laneB) { bStarted.signal() }
        XCTAssertEqual(bStarted.wait(timeout: startLimit), .success, "b's look ran while a's look was running")
        XCTAssertEqual(secondAStarted.wait(timeout: .now()), .timedOut, "a's second look waits for a's first (one look per tenant)")
        release.signal()
        XCTAssertEqual(secondAStarted.wait(timeout: startLimit), .success)
    }
}
