import CatbirdHTTP
import CatbirdMatching
@testable import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Regressions for a new user's findings on the `/catbird` routes: tenant admin isolation,
/// `remainingLimit: null`, journaling of 413s, `Allow` on 405 and `HEAD`, method tokens, and
/// the reason for well-formed JSON of the wrong shape.
final class ControlRouteRulesTests: XCTestCase {
    // MARK: - 1. Tenant admin routes respect isolation

    /// The ids listed by `GET /catbird/api/tenants` as `tenant` (nil: no header, the admin).
    private func tenantIDs(_ client: RawHTTPClient, as tenant: String?, line: UInt = #line) throws -> [String] {
        let answer = try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, answer.text, line: line)
        let tenants = answer.object["tenants"] as? [[String: Any]]
        XCTAssertNotNil(tenants, "no tenants array in \(answer.text)", line: line)
        return tenants?.compactMap { $0["id"] as? String } ?? []
    }

    func testAShardListsOnlyItsOwnTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: nil, url: "/d", body: "d")
        try E2E.addMock(client, tenant: "s1", url: "/one", body: "one")
        try E2E.addMock(client, tenant: "s2", url: "/two", body: "two")

        XCTAssertEqual(try tenantIDs(client, as: "s1"), ["s1"], "GET /catbird/api/tenants with X-Catbird-Parallel-Id: s1 listed every tenant")
        let own = try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader("s1")).object["tenants"] as? [[String: Any]]
        XCTAssertEqual(own?.first.flatMap { JSONNumber.int($0["mocks"]) }, 1, "the shard's own row keeps its counts")
        XCTAssertEqual(try tenantIDs(client, as: "s2"), ["s2"])
        XCTAssertEqual(try tenantIDs(client, as: "fresh"), [], "a shard without a row yet lists nothing")
        XCTAssertEqual(try tenantIDs(client, as: nil), ["", "s1", "s2"], "without the header (admin) every tenant is listed")
        // An empty header is refused on control calls (try6b finding 11: it was the admin):
        // ControlParallelIDTests.
        XCTAssertEqual(try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader("")).status, 400)
    }

    func testAShardCannotDropAnotherTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "s1", url: "/one", body: "one")
        try E2E.addMock(client, tenant: "s2", url: "/two", body: "two")

        let refused = try client.request("DELETE", "/catbird/api/tenants/s2", headers: E2E.tenantHeader("s1"))
        E2E.assertError(refused, status: 403, reasonContains: "only its own tenant")
        XCTAssertEqual(try E2E.mocks(client, tenant: "s2").count, 1, "s2 must survive s1's DELETE")
        XCTAssertEqual(try client.request("GET", "/two", headers: E2E.tenantHeader("s2")).text, "two")
        // Not even the default tenant, and not a tenant that does not exist (no existence leak).
        E2E.assertError(
            try client.request("DELETE", "/catbird/api/tenants/nobody", headers: E2E.tenantHeader("s1")), status: 403)

        let own = try client.request("DELETE", "/catbird/api/tenants/s1", headers: E2E.tenantHeader("s1"))
        XCTAssertEqual(own.status, 204, own.text)
        XCTAssertEqual(try tenantIDs(client, as: nil), ["", "s2"])

        let admin = try client.request("DELETE", "/catbird/api/tenants/s2")
        XCTAssertEqual(admin.status, 204, admin.text)
        XCTAssertEqual(try tenantIDs(client, as: nil), [""])
    }

    func testAShardCannotDropEveryTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for tenant in [nil, "s1", "s2"] as [String?] {
            try E2E.addMock(client, tenant: tenant, url: "/all", body: "all")
        }

        let refused = try client.request("DELETE", "/catbird/api/tenants", headers: E2E.tenantHeader("s1"))
        E2E.assertError(refused, status: 403, reasonContains: "may act on only its own tenant")
        XCTAssertEqual(try tenantIDs(client, as: nil), ["", "s1", "s2"], "nothing may be dropped")
        for tenant in [nil, "s1", "s2"] as [String?] {
            XCTAssertEqual(try E2E.mocks(client, tenant: tenant).count, 1, "mocks of \(tenant ?? "(default)")")
        }

        let admin = try client.request("DELETE", "/catbird/api/tenants?all=true")
        XCTAssertEqual(admin.status, 204, admin.text)
        XCTAssertEqual(try tenantIDs(client, as: nil), [""])
    }

    // MARK: - 2. remainingLimit is explicit

    func testAnUnlimitedMockListsRemainingLimitAsNull() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/forever", body: "x")
        try E2E.addMock(client, url: "/twice", body: "y", limit: 2)

        let answer = try client.request("GET", "/catbird/api/mocks")
        XCTAssertEqual(answer.status, 200, answer.text)
        let mocks = answer.object["mocks"] as? [[String: Any]] ?? []
        XCTAssertEqual(mocks.count, 2, answer.text)
        let unlimited = mocks.first { ($0["pattern"] as? [String: Any]).flatMap { $0["url"] as? [String: Any] }?["value"] as? String == "/forever" }
        XCTAssertTrue(unlimited?.keys.contains("remainingLimit") == true, "no remainingLimit key in \(answer.text)")
        XCTAssertTrue(unlimited?["remainingLimit"] is NSNull, "remainingLimit must be null: \(answer.text)")
        let response = unlimited?["response"] as? [String: Any]
        XCTAssertNil(response?["limit"], "response.limit stays omitted as in Catbird's wire format")
        let limited = mocks.first { JSONNumber.int($0["remainingLimit"]) != nil }
        XCTAssertEqual(JSONNumber.int(limited?["remainingLimit"]), 2, answer.text)
    }

    // MARK: - 3. 413 outside /catbird is journaled

    func testAnOversizedRequestOutsideCatbirdIsJournaled() throws {
        let server = try TestServer { $0.maxBodySize = 1024 }
        defer { server.removeFiles() }
        let control = try server.client()

        let over = try server.client().request("POST", "/up", body: [UInt8](repeating: 0x61, count: 2000))
        E2E.assertError(over, status: 413, reasonContains: "1024")

        let entries = try E2E.journal(control, tenant: nil)
        XCTAssertEqual(entries.count, 1, "the 413 must be journaled")
        let entry = entries.first ?? [:]
        XCTAssertEqual(entry["method"] as? String, "POST")
        XCTAssertEqual(entry["url"] as? String, "/up")
        XCTAssertEqual(entry["answeredBy"] as? String, "none")
        let request = entry["request"] as? [String: Any] ?? [:]
        XCTAssertNil(request["body"], "the discarded body is not stored")
        XCTAssertEqual(JSONNumber.int(request["bodySize"]), 2000, "its size is the declared Content-Length")
        XCTAssertEqual(request["bodyTruncated"] as? Bool, true)
        XCTAssertEqual((request["headers"] as? [String: Any])?["Content-Length"] as? String, "2000")
        let response = entry["response"] as? [String: Any] ?? [:]
        XCTAssertEqual(JSONNumber.int(response["status"]), 413)
        XCTAssertEqual(response["body"] as? String, over.text)
    }

    func testAnOversizedChunkedRequestIsJournaledInItsTenant() throws {
        let server = try TestServer { $0.maxBodySize = 1024 }
        defer { server.removeFiles() }
        let control = try server.client()

        let uploader = try server.client()
        var raw = Array("PUT /chunked HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: s1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<4 { raw += Array("200\r\n".utf8) + [UInt8](repeating: 0x62, count: 512) + Array("\r\n".utf8) }
        raw += Array("0\r\n\r\n".utf8)
        try uploader.send(raw: raw)
        E2E.assertError(try uploader.readResponse(), status: 413)

        let entries = try E2E.journal(control, tenant: "s1")
        XCTAssertEqual(entries.compactMap { $0["url"] as? String }, ["/chunked"])
        XCTAssertEqual(entries.first.flatMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, 413)
        XCTAssertEqual(try E2E.journal(control, tenant: nil).count, 0, "journaled in the sender's tenant only")
    }

    func testAnOversizedControlCallIsNotJournaled() throws {
        let server = try TestServer { $0.maxBodySize = 1024 }
        defer { server.removeFiles() }
        let big = E2E.updateAction(url: "/big", body: [UInt8](repeating: 0x62, count: 2000))
        E2E.assertError(try server.client().json("POST", "/catbird/api/mocks", big), status: 413)
        XCTAssertEqual(try E2E.journal(try server.client(), tenant: nil).count, 0)
    }

    // MARK: - 4. 405 carries Allow; HEAD answers like GET

    /// The methods of an `Allow` value.
    private func allowed(_ response: RawResponse) -> Set<String>? {
        response.header("Allow").map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
    }

    func testMethodNotAllowedListsTheAllowedMethods() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()

        let put = try client.request("PUT", "/catbird/api/mocks")
        E2E.assertError(put, status: 405)
        XCTAssertEqual(allowed(put), ["GET", "HEAD", "POST", "DELETE"], "PUT /catbird/api/mocks → 405 without Allow")
        let cases: [(String, String, Set<String>)] = [
            ("POST", "/catbird/api/health", ["GET", "HEAD"]),
            ("GET", "/catbird/api/sql", ["POST"]),
            ("HEAD", "/catbird/api/sql", ["POST"]),
            ("POST", "/catbird/api/tenants", ["GET", "HEAD", "DELETE"]),
            ("GET", "/catbird/api/tenants/someone", ["DELETE"]),
            ("PATCH", "/catbird/api/requests", ["GET", "HEAD", "DELETE"]),
        ]
        for (method, path, expected) in cases {
            let answer = try client.request(method, path)
            XCTAssertEqual(answer.status, 405, "\(method) \(path): \(answer.text)")
            XCTAssertEqual(allowed(answer), expected, "\(method) \(path)")
        }
        XCTAssertNil(try client.request("GET", "/catbird/nope").header("Allow"), "a 404 has no Allow")
    }

    func testHeadIsAnsweredLikeGetUnderCatbird() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/x", body: "x")

        for path in ["/catbird/api/health", "/catbird/api/mocks", "/catbird/api/requests", "/catbird/api/tenants", "/catbird/version", "/catbird"] {
            let get = try client.request("GET", path)
            let head = try client.request("HEAD", path)
            XCTAssertEqual(get.status, 200, "GET \(path): \(get.text)")
            XCTAssertEqual(head.status, 200, "HEAD \(path) → \(head.status)")
            XCTAssertEqual(head.body, [], "HEAD \(path) has no body")
            XCTAssertEqual(head.header("Content-Type"), get.header("Content-Type"), "HEAD \(path)")
            // The mock listing is streamed (chunked) to GET; HEAD declares its length instead.
            if path == "/catbird/api/health" || path == "/catbird/version" || path == "/catbird/api/mocks" {
                XCTAssertEqual(head.header("Content-Length"), "\(get.body.count)", "HEAD \(path)")
            }
        }
        // The connection is still in step: the next answer is the next request's.
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").object["status"] as? String, "ok")
    }

    /// `/catbird` and the paths under `/catbird/` are control routes; a path that only starts
    /// with the same letters (`/catbirdish`, `/catbird.json`) is the app's, served by mocks.
    func testOnlyCatbirdAndItsSubpathsAreControlRoutes() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/catbirdish", body: "mocked")
        try E2E.addMock(client, url: "/catbird.json?x=1", body: "mocked too")

        XCTAssertEqual(try client.request("GET", "/catbirdish").text, "mocked")
        XCTAssertEqual(try client.request("GET", "/catbird.json?x=1").text, "mocked too")
        XCTAssertEqual(try client.request("GET", "/catbird").status, 200, "the web page")
        XCTAssertEqual(try client.request("GET", "/catbird?x=1").status, 200, "the web page, with a query")
        let control = try client.request("GET", "/catbird/api/requests")
        let urls = (control.object["requests"] as? [[String: Any]])?.compactMap { $0["url"] as? String }
        XCTAssertEqual(urls.map(Set.init), ["/catbirdish", "/catbird.json?x=1"], "only the mocked requests are journaled: \(control.text)")
    }

    // MARK: - 5. pattern.method is an HTTP token

    func testPatternMethodMustBeAToken() throws {
        let harness = try ControlBadInputHarness()
        for method in ["", "GET POST", "GET\\t", "GÉT", "GET/1"] {
            try harness.assertRejected("method \(method.debugDescription)", 400, mentioning: ["pattern.method"]) {
                try $0.json("POST", "/catbird/api/mocks", #"""
                    {"type":"update","pattern":{"method":"\#(method)","url":{"kind":"equal","value":"/other"},"headers":{}},
                     "response":{"status":200,"headers":{}}}
                    """#)
            }
        }
    }

    func testUnusualButValidMethodTokensAreAccepted() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, method: "M-SEARCH", url: "/ssdp", body: "found")
        XCTAssertEqual(try client.request("M-SEARCH", "/ssdp").text, "found")
    }

    // MARK: - 6. Well-formed JSON of the wrong shape is not "malformed"

    func testAStringStatusIsNotCalledMalformedJSON() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("status as text", 400, mentioning: ["status"]) { client in
            let answer = try client.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":"200","headers":{}}"#))
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertFalse(reason.localizedCaseInsensitiveContains("malformed"), "well-formed JSON called malformed: \(reason)")
            return answer
        }
    }

    /// Foundation's decoder reads 512 levels and calls a deeper body "not valid JSON"; the
    /// reason must say it is too deep, not malformed, with the one limit and wording of
    /// docs/matching.md#json-nesting (it said "at most 511 levels are accepted", one less than
    /// Foundation reads and than the body patterns' 512). A body 512 levels deep is read: its
    /// reason is the unknown key it holds, not its depth.
    func testDeeplyNestedWellFormedJSONIsNotCalledMalformed() throws {
        let harness = try ControlBadInputHarness()
        // The body's own object is the first level; "extra" holds the rest.
        func body(depth: Int) -> String {
            let nested = String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
            return #"{"type":"update","pattern":\#(ControlBadInputHarness.otherPattern),"response":{"status":200,"headers":{}},"extra":\#(nested)}"#
        }
        for depth in [513, 601] {
            try harness.assertRejected(
                "\(depth) levels of nesting", 400,
                mentioning: ["the JSON body nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels (docs/matching.md#json-nesting)"]
            ) { client in
                let answer = try client.json("POST", "/catbird/api/mocks", body(depth: depth))
                let reason = answer.object["reason"] as? String ?? ""
                XCTAssertFalse(reason.localizedCaseInsensitiveContains("malformed"), "well-formed JSON called malformed: \(reason)")
                return answer
            }
        }
        try harness.assertRejected("512 levels of nesting", 400, mentioning: ["extra"]) { client in
            let answer = try client.json("POST", "/catbird/api/mocks", body(depth: 512))
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertFalse(reason.contains("levels"), "512 levels are read: \(reason)")
            return answer
        }
    }

    /// Where Foundation reports well-formed JSON of the wrong type as "not valid JSON" with no
    /// coding path (as it does for `"status":"200"` on some Linux versions), the reason says
    /// the JSON is well-formed and what to check. Simulated with a type that throws exactly
    /// that error, so the test does not depend on this machine's Foundation.
    func testWellFormedJSONReportedAsInvalidIsNotCalledMalformed() throws {
        struct ThrowsLikeLinuxFoundation: Decodable {
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
            }
        }
        let body = Array(ControlBadInputHarness.update(response: #"{"status":"200","headers":{}}"#).utf8)
        let request = HTTPRequest(method: "POST", target: "/catbird/api/mocks", headers: ["Content-Type": "application/json"], body: body)
        do {
            _ = try JSONBody.decode(ThrowsLikeLinuxFoundation.self, from: request)
            XCTFail("decoded")
        } catch {
            XCTAssertEqual(error.status, 400)
            XCTAssertFalse(error.reason.localizedCaseInsensitiveContains("malformed"), error.reason)
            XCTAssertTrue(error.reason.contains("well-formed but does not have the expected shape"), error.reason)
        }
        // Truly malformed input is refused before the decoder runs, naming the place.
        let truncated = HTTPRequest(
            method: "POST", target: "/catbird/api/mocks", headers: ["Content-Type": "application/json"], body: Array(#"{"type":"#.utf8))
        do {
            _ = try JSONBody.decode(ThrowsLikeLinuxFoundation.self, from: truncated)
            XCTFail("decoded")
        } catch {
            XCTAssertEqual(
                error.reason, "invalid JSON at line 1, column 9 (byte offset 8): expected a value (an object, array, string, number, "
                    + "true, false or null), found the end of the body")
        }
    }

    func testTrulyMalformedJSONIsStillCalledMalformed() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("truncated", 400, mentioning: ["invalid JSON at line 1, column 9 (byte offset 8)"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"type":"#)
        }
    }
}
