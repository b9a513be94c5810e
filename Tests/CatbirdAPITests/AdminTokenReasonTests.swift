import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `tenants()` against a server with an admin token says whether the call carried no token
/// or one the server did not take (tester finding T18C-F10: a wrong token was reported as
/// "this call did not carry it").
final class AdminTokenReasonTests: CatbirdTestCase {
    func testAWrongTokenIsNotReportedAsMissing() async throws {
        let server = try TestServer { $0.adminToken = "s3cret" }
        defer { server.removeFiles() }
        let wrong = server.catbird()
        wrong.adminToken = "nope"
        let sent = await assertCatbirdErrorAsync(401) { try await wrong.tenants() }
        let sentReason = try XCTUnwrap(sent?.reason)
        XCTAssertTrue(sentReason.hasPrefix("the server did not take the admin token this call sent"), sentReason)
        XCTAssertFalse(sentReason.contains("carried none"), sentReason)

        let none = server.catbird()
        none.adminToken = nil
        let missing = await assertCatbirdErrorAsync(401) { try await none.tenants() }
        let missingReason = try XCTUnwrap(missing?.reason)
        XCTAssertTrue(missingReason.hasPrefix("the server has an admin token, and this call carried none"), missingReason)
    }
}
