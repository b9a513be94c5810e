import CatbirdTestSupport
import Foundation
import XCTest

/// `HEAD /catbird/api/mocks` declares the length that `GET` streams (docs/protocol.md#control-actions),
/// counting each body's base64 as 4 × ⌈n / 3⌉ bytes without encoding it.
final class MockListHeadTests: XCTestCase {
    /// The count for every remainder of n / 3 and around the listing's 48 KiB body pieces,
    /// each body alone in its tenant's listing and all of them together (with a mock that has
    /// no body at all): HEAD's Content-Length is the length of GET's body, and GET's bodies
    /// are the mocks' own.
    func testHeadDeclaresTheLengthGetSendsForEveryBodySize() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let piece = 48 * 1024
        let sizes = [0, 1, 2, 3, piece - 1, piece, piece + 1]
        func body(_ size: Int) -> String { String(repeating: "b", count: size) }
        for size in sizes {
            try E2E.addMock(client, tenant: "size-\(size)", url: "/\(size)", body: body(size))
            try E2E.addMock(client, tenant: "all", url: "/\(size)", body: body(size))
        }
        try E2E.addMock(client, tenant: "all", url: "/none", body: nil)

        for tenant in sizes.map({ "size-\($0)" }) + ["all"] {
            let get = try client.request("GET", "/catbird/api/mocks", headers: E2E.tenantHeader(tenant))
            let head = try client.request("HEAD", "/catbird/api/mocks", headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(get.status, 200, tenant)
            XCTAssertEqual(head.status, 200, tenant)
            XCTAssertEqual(head.header("Content-Length"), "\(get.body.count)", tenant)
            XCTAssertEqual(head.body, [], tenant)
            let mocks = try XCTUnwrap(get.object["mocks"] as? [[String: Any]], tenant)
            let bodies = mocks.map { (($0["response"] as? [String: Any])?["body"] as? String).flatMap { Data(base64Encoded: $0) }?.count }
            let expected = tenant == "all" ? sizes : [Int(tenant.dropFirst(5))!]
            XCTAssertEqual(bodies.count, expected.count + (tenant == "all" ? 1 : 0), tenant)
            XCTAssertEqual(Array(bodies.prefix(expected.count)), expected.map { Optional($0) }, tenant)
        }
    }
}
