import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// try6b finding 10: `SELECT x` + 10,000,000 × `y` answered a 10,000,379-byte 400: SQLite's
/// message `no such column: xyyy…` was echoed whole. Reasons now cut what they echo, and no
/// reason is longer than 8,000 characters (docs/protocol.md#errors).
final class ErrorReasonSizeTests: XCTestCase {
    func testAnSQLErrorNamingATenMegabyteIdentifierAnswersAShortReason() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        let answer = try E2E.sql(client, "SELECT x" + String(repeating: "y", count: 10_000_000), tenant: "L")
        E2E.assertError(answer, status: 400, reasonContains: "SQLite error 1 (error): no such column: xyyy")
        let reason = answer.object["reason"] as? String ?? ""
        XCTAssertLessThan(answer.body.count, 1000, "the whole answer, was 10,000,379 bytes")
        XCTAssertTrue(reason.contains("yyy… — in: SELECT xyyy"), reason)
    }
}
