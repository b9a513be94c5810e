import CatbirdTestSupport
import Foundation
import XCTest

/// docs/tenancy.md#tenant-of-a-request: a parallel id is taken byte for byte, so two ids that
/// are canonically equivalent Unicode but different bytes (KELVIN SIGN and `K`, NFC and NFD
/// `café`, OHM and OMEGA, `Å` and `A` + combining ring) are two tenants, in memory as in SQLite
/// (try7b F1: the in-memory tables were keyed by Swift `String`, whose `==` is canonical
/// equivalence, so one shard served, listed and removed the other's mocks and re-labelled its
/// stored rows). The tester's exact ids. Test strings are compared as UTF-8 bytes: Swift's `==`
/// would hide the very difference under test.
final class EquivalentTenantIDTests: XCTestCase {
    /// The tester's four pairs (`t_unicode.py`): A, then B, equivalent but not byte-equal.
    private static let pairs: [(String, String)] = [
        ("caf\u{E9}", "cafe\u{301}"), ("shard-\u{212A}", "shard-K"), ("\u{2126}", "\u{3A9}"), ("\u{C5}x", "A\u{30A}x"),
    ]

    func testEquivalentIdsAreTwoTenantsForServingListingRemovingAndDropping() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for (a, b) in Self.pairs {
            XCTAssertNotEqual(Array(a.utf8), Array(b.utf8))
            XCTAssertEqual(a, b, "the pair is canonically equivalent (Swift ==)")
            try E2E.addMock(client, tenant: a, url: "/u1", body: "A-body")

            let forB = try client.request("GET", "/u1", headers: E2E.tenantHeader(b))
            E2E.assertError(forB, status: 404, reasonContains: "no mock matched GET /u1")
            XCTAssertEqual(try E2E.mocks(client, tenant: b).count, 0, "B lists none of A's mocks (\(b.debugDescription))")
            XCTAssertEqual(Self.bytes(try E2E.mockList(client, tenant: b)["tenant"]), Array(b.utf8))
            XCTAssertEqual(try E2E.journal(client, tenant: a).count, 0)
            XCTAssertEqual(try E2E.journal(client, tenant: b).count, 1)
            // Memory and SQL agree: A holds the mock, B none.
            XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT count(*) FROM mocks", tenant: a).first?.first), 1)
            XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT count(*) FROM mocks", tenant: b).first?.first), 0)
            let listed = try E2E.tenants(client)
            let rowA = listed.first { Self.bytes($0["id"]) == Array(a.utf8) }
            let rowB = listed.first { Self.bytes($0["id"]) == Array(b.utf8) }
            XCTAssertEqual(JSONNumber.int(rowA?["mocks"]), 1)
            XCTAssertEqual(JSONNumber.int(rowB?["mocks"]), 0)
            XCTAssertEqual(JSONNumber.int(rowB?["requests"]), 1)

            // B's removeAll and B's drop of its own id leave A's mock.
            try E2E.removeAll(client, tenant: b)
            let dropB = try client.request(
                "DELETE", "/catbird/api/tenants/" + Self.percentEncoded(b), headers: E2E.tenantHeader(b))
            XCTAssertEqual(dropB.status, 204, dropB.text)
            let forA = try client.request("GET", "/u1", headers: E2E.tenantHeader(a))
            XCTAssertEqual(forA.status, 200)
            XCTAssertEqual(forA.text, "A-body")
            XCTAssertEqual(try E2E.mocks(client, tenant: a).count, 1)
            XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT count(*) FROM mocks", tenant: a).first?.first), 1)
            let afterDrop = try E2E.tenants(client)
            XCTAssertNil(afterDrop.first { Self.bytes($0["id"]) == Array(b.utf8) }, "B's row is dropped")
            XCTAssertEqual(JSONNumber.int(afterDrop.first { Self.bytes($0["id"]) == Array(a.utf8) }?["mocks"]), 1)
            // A shard's listing of tenants is its own row only, by bytes.
            let ownA = try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader(a))
            let ownIDs = (ownA.object["tenants"] as? [[String: Any]] ?? []).map { Self.bytes($0["id"]) }
            XCTAssertEqual(ownIDs, [Array(a.utf8)])

            let clear = try client.request("DELETE", "/catbird/api/tenants?all=true")
            XCTAssertEqual(clear.status, 204)
        }
    }

    /// The tester's `t_unicode2.py`: A (KELVIN SIGN) adds `/a` and `/shared`; B (ASCII K) adds
    /// `/shared`, `/b` and removes `/a`. Each keeps its own mocks and rows, also after a restart
    /// (the rows are loaded back into two tables, not one).
    /// tester38a-F4: a 404's reason named the app's tenant `shard-\u{212A}` as `tenant "shard-K"`,
    /// which read as the test's ASCII tenant that held the mock. An id that NFC would change is
    /// now followed by its non-ASCII code points; its NFC twin is named as before.
    func testAReasonNamesAnIdNotInNFCWithItsCodePoints() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let notes = ["cafe\u{301}": "U+0301", "shard-\u{212A}": "U+212A", "\u{2126}": "U+2126", "A\u{30A}x": "U+030A"]
        for (a, b) in Self.pairs {
            for id in [a, b] {
                let answer = try client.request("GET", "/nothing-here", headers: E2E.tenantHeader(id))
                XCTAssertEqual(answer.status, 404, answer.text)
                let reason = answer.object["reason"] as? String ?? ""
                let note = notes.first { Array($0.key.utf8) == Array(id.utf8) }?.value
                if let note {
                    XCTAssertTrue(reason.contains("\" (not in NFC: \(note)); "), "\(id.debugDescription): \(reason)")
                } else {
                    XCTAssertFalse(reason.contains("not in NFC"), "\(id.debugDescription) is in NFC: \(reason)")
                }
            }
        }
        // tester39a-F2: an id with a zero-width space or a word joiner read as `web-1`.
        for (id, note) in [("web\u{200B}-1", "U+200B"), ("web\u{2060}-1", "U+2060")] {
            let reason = try client.request("GET", "/nothing-here", headers: E2E.tenantHeader(id)).object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("\" (holds \(note), which may not show); "), reason)
        }
        let plain = try client.request("GET", "/nothing-here", headers: E2E.tenantHeader("web-1")).object["reason"] as? String ?? ""
        XCTAssertFalse(plain.contains("(holds"), plain)
    }

    func testStoredRowsOfEquivalentIdsStayApartAcrossARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let (a, b) = ("shard-\u{212A}", "shard-K")
        var client = try server.client()
        try E2E.addMock(client, tenant: a, url: "/a", body: "A-a")
        try E2E.addMock(client, tenant: a, url: "/shared", body: "A-shared")
        try E2E.addMock(client, tenant: b, url: "/shared", body: "B-shared")
        try E2E.addMock(client, tenant: b, url: "/b", body: "B-b")
        let remove = try client.json(
            "POST", "/catbird/api/mocks", E2E.jsonText(["type": "remove", "pattern": E2E.pattern(url: "/a")]), headers: E2E.tenantHeader(b))
        XCTAssertEqual(remove.status, 204, remove.text)

        for restarted in [false, true] {
            if restarted {
                try server.restart()
                client = try server.client()
            }
            let context = restarted ? "after the restart" : "before the restart"
            XCTAssertEqual(try Self.urlsAndBodies(client, tenant: a), ["/a A-a", "/shared A-shared"], context)
            XCTAssertEqual(try Self.urlsAndBodies(client, tenant: b), ["/shared B-shared", "/b B-b"], context)
            for (tenant, hex) in [(a, "73686172642DE284AA"), (b, "73686172642D4B")] {
                let rows = try E2E.sqlRows(client, "SELECT DISTINCT hex(tenant) FROM mocks", tenant: tenant)
                XCTAssertEqual(rows.map { $0.first as? String }, [hex], context)
            }
            let expected: [(String, String, Int, String)] = [
                (a, "/a", 200, "A-a"), (a, "/shared", 200, "A-shared"), (a, "/b", 404, ""),
                (b, "/a", 404, ""), (b, "/shared", 200, "B-shared"), (b, "/b", 200, "B-b"),
            ]
            for (tenant, url, status, body) in expected {
                let answer = try client.request("GET", url, headers: E2E.tenantHeader(tenant))
                XCTAssertEqual(answer.status, status, "\(tenant.debugDescription) GET \(url) \(context)")
                if status == 200 { XCTAssertEqual(answer.text, body, "\(tenant.debugDescription) GET \(url) \(context)") }
            }
        }
    }

    /// The control lanes' per-tenant shares are kept by bytes too (docs/tenancy.md#fair-shares:
    /// a tenant's slow calls take turns on the slow pool, at most two running and four admitted,
    /// and its waits look one at a time, ``SerialLooks``). A (KELVIN SIGN) has two catastrophic
    /// counts running, each for its 2-s limit (its two slow threads), and a wait whose look is
    /// as slow queued behind them; B (ASCII K) then counts and waits at once, answered while A's
    /// calls still run. Were the two ids one key of the pool, B's count would queue behind A's
    /// counts (and of the admission: a 429); were they one key of the looks, B's wait's look
    /// would queue behind A's.
    func testEquivalentIdsTakeTheirOwnTurnsOnTheControlLanes() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let (a, b) = ("shard-\u{212A}", "shard-K")
        let client = try server.client()
        // `^/(a+)+$` takes about half a second per such row before ICU gives up (JournalCountTests).
        let slowURL = "/aaaaaaaaaaaaaaaaaaaaaaaaa!"
        let misses = try E2E.pipeline(
            client, (0..<40).map { _ in E2E.PipelinedRequest(method: "GET", target: slowURL, headers: E2E.tenantHeader(a)) })
        XCTAssertEqual(Set(misses.map(\.status)), [404])
        XCTAssertEqual(try client.request("GET", "/b", headers: E2E.tenantHeader(b)).status, 404)

        let catastrophic = #"{"method":"GET","url":{"kind":"regexp","value":"^/(a+)+$"},"headers":{}}"#
        let slowCalls = [
            ("/catbird/api/requests/count", #"{"pattern":\#(catastrophic)}"#),
            ("/catbird/api/requests/count", #"{"pattern":\#(catastrophic)}"#),
            ("/catbird/api/requests/wait", #"{"pattern":\#(catastrophic),"timeout":5,"since":0}"#),
        ]
        let clock = ContinuousClock()
        let aEnded = Locked<[ContinuousClock.Instant]>([])
        let group = DispatchGroup()
        let port = server.port
        for (path, body) in slowCalls {
            group.enter()
            Thread {
                defer { group.leave() }
                _ = try? RawHTTPClient(port: port).json("POST", path, body, headers: E2E.tenantHeader(a))
                aEnded.append(clock.now)
            }.start()
        }
        usleep(300_000)  // A's calls reach their lanes (B's, if they came first, would prove nothing)

        let bPattern = #"{"method":"GET","url":{"kind":"equal","value":"/b"},"headers":{}}"#
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(bPattern)}"#, headers: E2E.tenantHeader(b))
        let wait = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":\#(bPattern),"timeout":5,"since":0}"#, headers: E2E.tenantHeader(b))
        let bEnded = clock.now
        XCTAssertEqual(count.status, 200, count.text)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 1, count.text)
        XCTAssertEqual(wait.status, 200, wait.text)
        XCTAssertEqual(wait.object["url"] as? String, "/b", wait.text)
        group.wait()
        XCTAssertEqual(aEnded.value.count, 3)
        for ended in aEnded.value {
            XCTAssertGreaterThan(bEnded.duration(to: ended), .zero, "B's count and wait were answered while A's slow calls ran")
        }
    }

    /// A control call naming two equivalent ids (the header twice) names two tenants: refused
    /// like any two different ids (docs/tenancy.md#tenant-of-a-request).
    func testAControlCallWithTwoEquivalentIdsIsRefused() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let answer = try client.request(
            "GET", "/catbird/api/mocks", headers: [("X-Catbird-Parallel-Id", "caf\u{E9}"), ("X-Catbird-Parallel-Id", "cafe\u{301}")])
        E2E.assertError(answer, status: 400, reasonContains: "sent twice with different values")
        // tester39a-F8: the reason read `("café", "café")`, one value twice; the NFD one is marked.
        XCTAssertTrue((answer.object["reason"] as? String ?? "").contains("\"cafe\u{301}\" (not in NFC: U+0301))"), answer.text)
        // And a drop of a look-alike id that is not there says which spelling it was asked for.
        try E2E.addMock(client, tenant: "mt-K", url: "/only-mt", body: "x")
        let dropped = try client.request("DELETE", "/catbird/api/tenants/mt-%E2%84%AA")
        E2E.assertError(dropped, status: 404, reasonContains: "no tenant \"mt-\u{212A}\" (not in NFC: U+212A)")
    }

    /// `url value body` of the tenant's mocks, in list order.
    private static func urlsAndBodies(_ client: RawHTTPClient, tenant: String) throws -> [String] {
        try E2E.mocks(client, tenant: tenant).map { mock in
            let url = ((mock["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String ?? "?"
            let body = ((mock["response"] as? [String: Any])?["body"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
            return url + " " + String(decoding: body, as: UTF8.self)
        }
    }

    /// A JSON string's UTF-8 bytes (nil for anything else).
    private static func bytes(_ value: Any?) -> [UInt8]? {
        (value as? String).map { Array($0.utf8) }
    }

    /// Every byte of the id's UTF-8 percent-encoded (one path segment).
    private static func percentEncoded(_ id: String) -> String {
        id.utf8.map { String(format: "%%%02X", $0) }.joined()
    }
}
