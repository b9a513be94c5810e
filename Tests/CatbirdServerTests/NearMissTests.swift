import CatbirdTestSupport
import Foundation
import XCTest

/// Near misses over real sockets (docs/matching.md#near-misses): a request with a typo in the
/// path gets a 404 naming its tenant and closest mock, with each field beside the pattern; the
/// same near misses are in its journal entry and in `GET /catbird/api/requests/unmatched`; a
/// request without a parallel id is told which tenant's mock would have matched it.
final class NearMissTests: ServerTestCase {
    private func add(_ pattern: String, body: String, tenant: String?) throws -> Int {
        let action = #"{"type":"update","pattern":\#(pattern),"response":{"status":200,"body":"\#(Data(body.utf8).base64EncodedString())"}}"#
        let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 201, answer.text)
        let mocks = try E2E.mocks(client, tenant: tenant)
        return try XCTUnwrap(JSONNumber.int(mocks.last?["id"]))
    }

    func testATypoInThePathNamesTheClosestMockAndTheFieldThatDiffersInThe404TheJournalAndTheUnmatchedListing() throws {
        let users = try add(#"{"method":"GET","url":{"kind":"equal","value":"/api/users"}}"#, body: "users", tenant: "s1")
        _ = try add(#"{"method":"POST","url":{"kind":"equal","value":"/api/users"}}"#, body: "created", tenant: "s1")
        _ = try add(#"{"method":"GET","url":{"kind":"equal","value":"/api/feed"}}"#, body: "feed", tenant: nil)

        let miss = try client.request("GET", "/api/usres", headers: E2E.tenantHeader("s1"))
        XCTAssertEqual(miss.status, 404)
        XCTAssertEqual(miss.header("Content-Type"), "application/json; charset=utf-8")
        let body = miss.object
        XCTAssertEqual(body["error"] as? Bool, true)
        XCTAssertEqual(body["tenant"] as? String, "s1")
        let reason = try XCTUnwrap(body["reason"] as? String)
        XCTAssertEqual(
            reason,
            #"no mock matched GET /api/usres in tenant "s1"; the closest is mock \#(users) (GET equal "/api/users") of tenant "s1": url differs (expected equal "/api/users", got "/api/usres")"#)
        XCTAssertFalse(reason.contains("\n"))
        XCTAssertNil(body["matchingTenants"], "the request had a parallel id")

        let nearMisses = try XCTUnwrap(body["nearMisses"] as? [[String: Any]])
        XCTAssertEqual(nearMisses.count, 3, "the tenant's two mocks and the default tenant's one")
        XCTAssertEqual(nearMisses.compactMap { JSONNumber.int($0["mockId"]) }.first, users)
        // Closest first: the url typo (0.4), the default tenant's GET with another url (0.55), the
        // tenant's POST with the typo (a method differs: 1.4).
        XCTAssertEqual(nearMisses.map { $0["tenant"] as? String }, ["s1", "", "s1"])
        XCTAssertEqual(nearMisses.compactMap { JSONNumber.double($0["distance"]) }, [0.4, 0.55, 1.4])
        let fields = try XCTUnwrap(nearMisses.first?["fields"] as? [[String: Any]])
        XCTAssertEqual(fields.map { $0["field"] as? String }, ["method", "url"])
        XCTAssertEqual(fields.map { $0["verdict"] as? String }, ["match", "differs"])
        XCTAssertEqual(fields.last?["expected"] as? String, #"equal "/api/users""#)
        XCTAssertEqual(fields.last?["actual"] as? String, "/api/usres")
        let distances = nearMisses.compactMap { JSONNumber.double($0["distance"]) }
        XCTAssertEqual(distances, distances.sorted())
        XCTAssertGreaterThan(distances.first ?? 0, 0)

        // The journal entry carries the same near misses; the unmatched listing has that entry only.
        _ = try client.request("GET", "/api/users", headers: E2E.tenantHeader("s1"))
        let entries = try E2E.journal(client, tenant: "s1")
        XCTAssertEqual(entries.count, 2)
        let journaled = try XCTUnwrap(entries.first?["nearMisses"] as? [[String: Any]])
        XCTAssertEqual(journaled.compactMap { JSONNumber.int($0["mockId"]) }, nearMisses.compactMap { JSONNumber.int($0["mockId"]) })
        XCTAssertNil(entries.last?["nearMisses"], "a request a mock answered has none")
        let unmatched = try client.request("GET", "/catbird/api/requests/unmatched", headers: E2E.tenantHeader("s1"))
        XCTAssertEqual(unmatched.status, 200, unmatched.text)
        let listed = try XCTUnwrap(unmatched.object["requests"] as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["url"] as? String }, ["/api/usres"])
        XCTAssertEqual((listed.first?["nearMisses"] as? [Any])?.count, 3)
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests/unmatched?wait=1").status, 400)
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests/unmatched?limit=0").status, 400)

        // SQL sees the column.
        let rows = try E2E.sqlRows(client, "SELECT url, json_array_length(near_misses) FROM requests WHERE near_misses IS NOT NULL", tenant: "s1")
        XCTAssertEqual(rows.first?.first as? String, "/api/usres")
    }

    func testHeadersAndBodiesGetTheirOwnVerdicts() throws {
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/login"},"headers":{"X-Token":{"kind":"equal","value":"abc"},"Accept":{"kind":"wildcard","value":"*json*"}},"body":{"kind":"jsonPath","value":"$.login","equalTo":"john"}}"#
        _ = try add(pattern, body: "ok", tenant: "s2")
        let miss = try client.request(
            "POST", "/login", headers: E2E.tenantHeader("s2") + [("Accept", "text/html")], body: Array(#"{"login":"ann"}"#.utf8))
        XCTAssertEqual(miss.status, 404)
        let fields = try XCTUnwrap((miss.object["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]])
        let verdicts = fields.map { "\($0["field"] as? String ?? "")\(($0["name"] as? String).map { " " + $0 } ?? ""): \($0["verdict"] as? String ?? "")" }
        XCTAssertEqual(verdicts, ["method: match", "url: match", "header Accept: differs", "header X-Token: missing", "body: differs"])
        XCTAssertEqual(fields.last?["expected"] as? String, #"jsonPath "$.login" equalTo "john""#)
        XCTAssertEqual(fields.last?["actual"] as? String, #"{"login":"ann"}"#)
        XCTAssertTrue(E2E.isNull(fields[3]["actual"]) || fields[3]["actual"] == nil)
        let reason = miss.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("header X-Token missing"), reason)
        XCTAssertTrue(reason.contains(#"body differs (expected jsonPath "$.login" equalTo "john", got "{\"login\":\"ann\"}")"#), reason)
    }

    func testARequestWithoutAParallelIdIsToldWhichTenantsMockWouldHaveMatched() throws {
        _ = try add(#"{"method":"GET","url":{"kind":"equal","value":"/api/feed"}}"#, body: "feed", tenant: "shard-7")
        let miss = try client.request("GET", "/api/feed")
        XCTAssertEqual(miss.status, 404)
        XCTAssertEqual(miss.object["tenant"] as? String, "")
        XCTAssertEqual(miss.object["matchingTenants"] as? [String], ["shard-7"])
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        XCTAssertTrue(reason.hasPrefix("no mock matched GET /api/feed in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); it has no mocks"), reason)
        XCTAssertTrue(reason.contains(#"tenant "shard-7" has a mock that matches it"#), reason)
        XCTAssertEqual((miss.object["nearMisses"] as? [Any])?.count, 0, "the default tenant has no mocks to compare")

        // tester21a-F7: an empty parallel id (or an empty one before a real one) is the default
        // tenant's too, and the reason said the request had none.
        for fields in ["X-Catbird-Parallel-Id:\r\n", "X-Catbird-Parallel-Id: \r\nX-Catbird-Parallel-Id: shard-9\r\n"] {
            let raw = try RawHTTPClient(port: server.port)
            try raw.send(raw: Array("GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)Connection: close\r\n\r\n".utf8))
            let empty = try raw.readResponse()
            XCTAssertEqual(empty.status, 404)
            XCTAssertTrue((empty.object["reason"] as? String ?? "").hasPrefix(
                "no mock matched GET /nothing-here in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty)"), empty.text)
        }

        // A shard's request is never told about other shards.
        let shardMiss = try client.request("GET", "/api/feed", headers: E2E.tenantHeader("shard-8"))
        XCTAssertNil(shardMiss.object["matchingTenants"])
        XCTAssertEqual(shardMiss.object["reason"] as? String, #"no mock matched GET /api/feed in tenant "shard-8"; neither it nor the default tenant has mocks"#)

        // Two tenants: plural (try9a F12: `but tenant "swift-1", "swift-2" has a mock`).
        _ = try add(#"{"method":"GET","url":{"kind":"equal","value":"/api/feed"}}"#, body: "feed", tenant: "shard-9")
        let both = try client.request("GET", "/api/feed")
        XCTAssertEqual(both.object["matchingTenants"] as? [String], ["shard-7", "shard-9"])
        let plural = try XCTUnwrap(both.object["reason"] as? String)
        XCTAssertTrue(plural.contains(#"; but tenants "shard-7", "shard-9" have mocks that match it: is the app sending"#), plural)

        // tester21a-F10: six shards match, three are named, and the reason said nothing of the others.
        for index in 0..<6 {
            _ = try add(#"{"method":"GET","url":{"kind":"equal","value":"/cap3x"}}"#, body: "x", tenant: "aa-cap\(index)")
        }
        let capped = try client.request("GET", "/cap3x")
        XCTAssertEqual(capped.object["matchingTenants"] as? [String], ["aa-cap0", "aa-cap1", "aa-cap2"])
        let cut = try XCTUnwrap(capped.object["reason"] as? String)
        XCTAssertTrue(
            cut.contains(
                #"; but tenants "aa-cap0", "aa-cap1", "aa-cap2" and others (only 3 are named, by id, those whose mock "#
                    + #"matching it is a catch-all last) have mocks that match it"#), cut)
        XCTAssertFalse(plural.contains("and others"), plural)
    }

    /// Regression (tester finding tester54b-F2, its exact mocks): three shards `a1`, `a2`, `a3`
    /// with a catch-all `wildcard "*"` each and `zz-x` with `equal "/only-x"`; `GET /only-x`
    /// without a parallel id named `a1`, `a2`, `a3` "and others", never `zz-x`, the shard the
    /// app was aimed at. Shards whose matching mock is more than a catch-all are named first.
    func testMatchingTenantsNameAShardsExactMockBeforeOtherShardsCatchAlls() throws {
        for tenant in ["a1", "a2", "a3"] {
            _ = try add(#"{"method":"GET","url":{"kind":"wildcard","value":"*"}}"#, body: "any", tenant: tenant)
        }
        _ = try add(#"{"method":"GET","url":{"kind":"equal","value":"/only-x"}}"#, body: "x", tenant: "zz-x")
        let miss = try client.request("GET", "/only-x")
        XCTAssertEqual(miss.status, 404, miss.text)
        XCTAssertEqual(miss.object["matchingTenants"] as? [String], ["zz-x", "a1", "a2"], miss.text)
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        XCTAssertTrue(reason.contains(#"; but tenants "zz-x", "a1", "a2" and others (only 3 are named"#), reason)
    }

    func testNearMissesAreBoundedAndAHitIsUnaffected() throws {
        var actions: [String] = []
        for index in 0..<150 {
            actions.append(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/item/\#(index)"}},"response":{"status":200}}"#)
        }
        for action in actions { XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201) }
        let miss = try client.request("GET", "/item/x")
        XCTAssertEqual((miss.object["nearMisses"] as? [Any])?.count, 3, "at most 3 near misses")
        let hit = try client.request("GET", "/item/149")
        XCTAssertEqual(hit.status, 200)
        XCTAssertEqual(hit.body.count, 0)
    }

    /// A 404's near misses are journaled once (docs/schema.md, `near_misses`): the row stores
    /// where they are in the stored 404 body, and `near_misses` reads them from there, the same
    /// bytes the app received; a HEAD request (no body sent) and a body cut by
    /// `--journal-body-limit` keep their own copy, so `nearMisses` is whole in every case.
    func testTheJournalStoresA404sNearMissesOnceAndReadsThemWholeWhateverTheBodyKept() throws {
        let limited = try TestServer { $0.journalBodyLimit = 40 }
        defer { limited.removeFiles() }
        let limitedClient = try limited.client()
        for (server, client) in [(server!, client!), (limited, limitedClient)] {
            let action = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/users"}},"response":{"status":200}}"#
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("s1")).status, 201)
            let miss = try client.request("GET", "/api/usérs", headers: E2E.tenantHeader("s1"))
            XCTAssertEqual(miss.status, 404)
            let head = try client.request("HEAD", "/api/usérs", headers: E2E.tenantHeader("s1"))
            XCTAssertEqual(head.status, 404)
            // The body's nearMisses array as sent, byte for byte.
            let body = miss.text
            let start = try XCTUnwrap(body.range(of: #""nearMisses":"#)).upperBound
            let end = try XCTUnwrap(body.range(of: #","reason":"#)).lowerBound
            let sent = String(body[start..<end])

            let rows = try E2E.sqlRows(
                client,
                """
                SELECT method, near_misses, near_misses_copy IS NULL, near_misses_offset IS NULL, length(response_body)
                FROM requests WHERE near_misses IS NOT NULL ORDER BY id
                """, tenant: "s1")
            XCTAssertEqual(rows.map { $0[0] as? String }, ["GET", "HEAD"])
            XCTAssertEqual(rows.first?[1] as? String, sent, "the text the app received, whole")
            // HEAD's own near misses (its method differs: 1 + 0.386), whole though no body was kept.
            let headText = try XCTUnwrap(rows.last?[1] as? String)
            XCTAssertEqual(
                headText, sent.replacingOccurrences(of: #""distance":0.386"#, with: #""distance":1.386"#)
                    .replacingOccurrences(of: #"{"actual":"GET","expected":"GET","field":"method","verdict":"match"}"#,
                                          with: #"{"actual":"HEAD","expected":"GET","field":"method","verdict":"differs"}"#))
            let limit = server === limited ? 40 : nil
            let onceInBody = limit == nil
            XCTAssertEqual(rows.first.map { JSONNumber.int($0[2]) }, onceInBody ? 1 : 0, "a copy only when the stored body lacks them")
            XCTAssertEqual(rows.first.map { JSONNumber.int($0[3]) }, onceInBody ? 0 : 1)
            XCTAssertEqual(rows.first.map { JSONNumber.int($0[4]) }, limit ?? miss.body.count)
            XCTAssertEqual(rows.last.map { JSONNumber.int($0[2]) }, 0, "HEAD: no body journaled, so a copy")
            XCTAssertTrue(rows.last.map { E2E.isNull($0[4]) } ?? false)

            let entries = try E2E.journal(client, tenant: "s1")
            XCTAssertEqual(entries.count, 2)
            let journaled = try XCTUnwrap(entries.first?["nearMisses"] as? [[String: Any]])
            let expected = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]])
            XCTAssertEqual(try canonicalJSON(object: journaled), try canonicalJSON(object: expected))
            XCTAssertEqual((entries.last?["nearMisses"] as? [Any])?.count, 1)
            let unmatched = try client.request("GET", "/catbird/api/requests/unmatched", headers: E2E.tenantHeader("s1"))
            XCTAssertEqual((unmatched.object["requests"] as? [Any])?.count, 2, unmatched.text)
        }
    }
}
