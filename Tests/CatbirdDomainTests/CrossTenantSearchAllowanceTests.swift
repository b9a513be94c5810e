@testable import CatbirdDomain
import XCTest

/// The `matchingTenants` searches' time in all (tester finding tester30b-F2).
final class CrossTenantSearchAllowanceTests: XCTestCase {
    func testSearchesStopStartingOnceASecondsAllowanceIsSpentAndStartAgainTheNextSecond() {
        let allowance = CrossTenantSearchAllowance()
        XCTAssertTrue(allowance.mayStart())
        allowance.charge(.milliseconds(30))
        XCTAssertTrue(allowance.mayStart(), "30 of 50 ms spent")
        allowance.charge(.milliseconds(21))
        XCTAssertFalse(allowance.mayStart(), "51 of 50 ms spent")
        usleep(1_050_000)
        XCTAssertTrue(allowance.mayStart(), "a new second")
    }
}
