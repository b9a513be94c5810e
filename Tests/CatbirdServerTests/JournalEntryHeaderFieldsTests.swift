import CatbirdTestSupport
import Foundation
import XCTest

/// `GET /catbird/api/requests/{id}`'s `headerFields` (docs/protocol.md#journal): each side's
/// header fields one by one, which the entry's `headers` joins (tester finding T18A-F5: the web
/// page's "Copy as curl" built `-H 'X-Token: abc, zzz'` from two fields, and the mock that had
/// answered them, matching the first value `abc`, answered the copy 404).
final class JournalEntryHeaderFieldsTests: XCTestCase {
    private func fields(_ message: Any?) -> [[String]]? {
        ((message as? [String: Any])?["headerFields"] as? [[String: Any]])?.map { [$0["name"] as? String ?? "?", $0["value"] as? String ?? "?"] }
    }

    /// The finding's exact input: a mock on `X-Token` equal `abc`, a request with `X-Token: abc`
    /// and `X-Token: zzz`.
    func testTwoFieldsOfOneNameAreGivenApartAndSentSoAreAnsweredAsTheOriginal() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = "t18-dup"
        try E2E.addMock(client, tenant: tenant, url: "/dup", headerPatterns: ["X-Token": ("equal", "abc")], body: "hit")
        let sent = try client.request("GET", "/dup", headers: E2E.tenantHeader(tenant) + [("X-Token", "abc"), ("X-Token", "zzz")])
        XCTAssertEqual(sent.status, 200, sent.text)

        let listed = try E2E.journal(client, tenant: tenant, query: "order=newest&limit=1&bodies=false")
        let id = try XCTUnwrap(JSONNumber.int(listed.first?["id"]))
        let listedRequest = listed.first?["request"] as? [String: Any]
        XCTAssertEqual((listedRequest?["headers"] as? [String: String])?["X-Token"], "abc, zzz", "the listing's shape is unchanged")
        XCTAssertNil(listedRequest?["headerFields"], "the listing does not carry them")

        let answer = try client.request("GET", "/catbird/api/requests/\(id)?bodies=false", headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, answer.text)
        let request = answer.object["request"] as? [String: Any]
        XCTAssertEqual((request?["headers"] as? [String: String])?["X-Token"], "abc, zzz", "headers keeps its shape")
        let requestFields = try XCTUnwrap(fields(request), answer.text)
        XCTAssertEqual(requestFields.filter { $0[0] == "X-Token" }, [["X-Token", "abc"], ["X-Token", "zzz"]], "one per field, in order")
        XCTAssertEqual(requestFields.map { $0[0].lowercased() }, requestFields.map { $0[0].lowercased() }.sorted(), "names sorted")
        XCTAssertTrue(requestFields.contains(["X-Catbird-Parallel-Id", tenant]), "\(requestFields)")
        XCTAssertTrue(fields(answer.object["response"])?.contains(["Content-Length", "3"]) == true, answer.text)

        // Sent again field by field, as the page's command now does, the request is answered as
        // the original was; with the joined value it is not (what the copied command got).
        let replayed = try client.request("GET", "/dup", headers: requestFields.filter { $0[0] != "Host" }.map { ($0[0], $0[1]) })
        XCTAssertEqual(replayed.status, 200, replayed.text)
        XCTAssertEqual(replayed.text, "hit")
        let joined = try client.request("GET", "/dup", headers: E2E.tenantHeader(tenant) + [("X-Token", "abc, zzz")])
        XCTAssertEqual(joined.status, 404, joined.text)
    }

    /// A repeated response field (two `Set-Cookie`, given in two spellings as docs/protocol.md
    /// says) is given apart too, where `headers` joins the two cookies into one value.
    func testARepeatedResponseFieldIsGivenApart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/c", responseHeaders: ["Set-Cookie": "a=1", "set-cookie": "b=2"], body: nil)
        _ = try client.request("GET", "/c")
        let id = try XCTUnwrap(JSONNumber.int(try E2E.journal(client, tenant: nil, query: "order=newest&limit=1").first?["id"]))
        let answer = try client.request("GET", "/catbird/api/requests/\(id)")
        XCTAssertEqual(answer.status, 200, answer.text)
        let cookies = fields(answer.object["response"])?.filter { $0[0].lowercased() == "set-cookie" }.map { $0[1] }
        XCTAssertEqual(cookies?.sorted(), ["a=1", "b=2"], answer.text)
    }
}
