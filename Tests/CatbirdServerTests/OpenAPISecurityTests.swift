import CatbirdTestSupport
import Foundation
import XCTest

/// Every operation of the OpenAPI document that may answer 401 (an admin route, or a change
/// of the default tenant with `--admin-token` set) says where the token goes: `security`
/// offering `adminToken`, so that a generated client and tools that honour `security`
/// (Schemathesis, Postman) can send it.
///
/// Regression (tester finding tester30a-F5): `POST /catbird/api/mocks` and `DELETE
/// /catbird/api/requests` listed a 401 but no security requirement, while `DELETE
/// /catbird/api/mocks/{id}`, refused for the same reason, had one.
final class OpenAPISecurityTests: ServerTestCase {
    func testEveryOperationThatMayAnswer401OffersTheAdminToken() throws {
        let answer = try client.request("GET", "/catbird/api/openapi.json")
        XCTAssertEqual(answer.status, 200, answer.text)
        let paths = try XCTUnwrap(answer.object["paths"] as? [String: [String: Any]])
        var checked: [String] = []
        for (path, item) in paths {
            for (method, value) in item {
                guard let operation = value as? [String: Any], let responses = operation["responses"] as? [String: Any],
                      responses["401"] != nil else { continue }
                let security = operation["security"] as? [[String: Any]] ?? []
                XCTAssertTrue(security.contains { $0["adminToken"] != nil }, "\(method.uppercased()) \(path): \(security)")
                checked.append("\(method.uppercased()) \(path)")
            }
        }
        XCTAssertTrue(checked.contains("POST /catbird/api/mocks"), "\(checked)")
        XCTAssertTrue(checked.contains("DELETE /catbird/api/requests"), "\(checked)")
    }
}
