import CatbirdTestSupport
import Foundation
import XCTest

/// tester43a-F1: the web page read the tenant's whole mock list, every response body in base64,
/// every 5 s on either tab, to show a count and a table without bodies (20 mocks of 5 MiB: about
/// 1 GB in 30 s). `GET /catbird/api/mocks?bodies=false` lists each mock without its body, its
/// size as `responseBodySize`; the page asks for that.
final class MockListWithoutBodiesTests: ServerTestCase {
    func testTheListingWithoutBodiesGivesTheirSizesOnly() throws {
        let big = String(repeating: "v", count: 300_000)
        try E2E.addMock(client, tenant: "media", url: "/video.mp4", body: big)
        try E2E.addMock(client, tenant: "media", url: "/empty", body: "")
        let headers = E2E.tenantHeader("media")
        let listed = try client.request("GET", "/catbird/api/mocks?bodies=false", headers: headers)
        XCTAssertEqual(listed.status, 200, listed.text)
        XCTAssertLessThan(listed.body.count, 2_000, "no body in it: \(listed.body.count) bytes")
        let mocks = try XCTUnwrap(listed.object["mocks"] as? [[String: Any]])
        XCTAssertEqual(mocks.compactMap { JSONNumber.int($0["responseBodySize"]) }, [300_000, 0])
        XCTAssertTrue(mocks.allSatisfy { ($0["response"] as? [String: Any])?["body"] == nil }, listed.text)
        XCTAssertEqual(mocks.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }, [200, 200])
        // HEAD declares the same length; the default still lists the bodies, without the size.
        let head = try client.request("HEAD", "/catbird/api/mocks?bodies=false", headers: headers)
        XCTAssertEqual(head.header("Content-Length"), String(listed.body.count))
        let whole = try client.request("GET", "/catbird/api/mocks", headers: headers)
        let first = try XCTUnwrap((whole.object["mocks"] as? [[String: Any]])?.first)
        XCTAssertEqual((first["response"] as? [String: Any])?["body"] as? String, Data(big.utf8).base64EncodedString())
        XCTAssertNil(first["responseBodySize"])
        let bad = try client.request("GET", "/catbird/api/mocks?bodies=no", headers: headers)
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.object["reason"] as? String, "'bodies' must be 'true' or 'false'")
    }
}
