@testable import CatbirdDomain
import CatbirdSupport
import XCTest

/// The journal limits' fair shares (``JournalShares``): only tenants over the share lose, down to
/// it, and exactly the limit remains.
final class JournalSharesTests: XCTestCase {
    private func cuts(_ held: [String: Int], keeping limit: Int) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: JournalShares.cuts(
            Dictionary(uniqueKeysWithValues: held.map { (TenantID($0.key), $0.value) }), keeping: limit
        ).map { ($0.tenant.rawValue, $0.cut) })
    }

    /// try9b F2's numbers: a quiet tenant's 10 rows and a noisy tenant's 2,000 under a limit of
    /// 1,000: the noisy tenant alone loses, 1,010 rows.
    func testOnlyTheTenantOverItsShareLoses() {
        XCTAssertEqual(cuts(["quiet": 10, "noisy": 2000], keeping: 1000), ["noisy": 1010])
    }

    /// Two large tenants share what a small one leaves, half each; a remainder goes one unit
    /// each to the largest, so exactly the limit is kept.
    func testLargeTenantsShareWhatSmallOnesLeave() {
        XCTAssertEqual(cuts(["a": 600, "b": 600, "c": 10], keeping: 1000), ["a": 105, "b": 105])
        XCTAssertEqual(cuts(["a": 10, "b": 10, "c": 10], keeping: 20), ["a": 4, "b": 3, "c": 3], "ties: the later ids keep the remainder")
        XCTAssertEqual(cuts(["a": 700, "b": 400, "c": 100], keeping: 1000), ["a": 200], "b fits in what c leaves")
    }

    /// Nothing is cut while everything fits; a limit of 0 cuts everything.
    func testTheEdges() {
        XCTAssertEqual(cuts(["a": 500, "b": 500], keeping: 1000), [:])
        XCTAssertEqual(cuts([:], keeping: 0), [:])
        XCTAssertEqual(cuts(["a": 5, "b": 7], keeping: 0), ["a": 5, "b": 7])
    }
}
