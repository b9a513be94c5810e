import CatbirdTestSupport
import Foundation
import XCTest

/// docs/tenancy.md#isolation: each `X-Catbird-Parallel-Id` is its own tenant; the default tenant's mocks are
/// shared fixtures tried after the tenant's own; control actions and listings touch only the caller.
final class TenantIsolationTests: XCTestCase {
    func testSamePatternInTwoTenantsServesEachItsOwnBody() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/api/profile", body: "profile of P")
        try E2E.addMock(client, tenant: "Q", url: "/api/profile", body: "profile of Q")

        let forP = try client.request("GET", "/api/profile", headers: E2E.tenantHeader("P"))
        let forQ = try client.request("GET", "/api/profile", headers: E2E.tenantHeader("Q"))
        let forDefault = try client.request("GET", "/api/profile")

        XCTAssertEqual(forP.status, 200)
        XCTAssertEqual(forP.text, "profile of P")
        XCTAssertEqual(forQ.status, 200)
        XCTAssertEqual(forQ.text, "profile of Q")
        E2E.assertError(forDefault, status: 404, reasonContains: "no mock matched GET")
    }

    func testDefaultTenantMockAddedEarlierDoesNotShadowTenantsOwn() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: nil, url: "/api/profile", body: "shared fixture")
        try E2E.addMock(client, tenant: "P", url: "/api/profile", body: "profile of P")

        XCTAssertEqual(try client.request("GET", "/api/profile", headers: E2E.tenantHeader("P")).text, "profile of P")
        XCTAssertEqual(try client.request("GET", "/api/profile").text, "shared fixture")
        let forR = try client.request("GET", "/api/profile", headers: E2E.tenantHeader("R"))
        XCTAssertEqual(forR.status, 200)
        XCTAssertEqual(forR.text, "shared fixture", "a tenant without its own mock falls back to the default tenant's")

        // The fallback is journaled under the caller's tenant, naming the default tenant's mock.
        let defaultMockID = JSONNumber.int(try E2E.mocks(client, tenant: nil).first?["id"])
        let rJournal = try E2E.journal(client, tenant: "R")
        XCTAssertEqual(rJournal.count, 1)
        XCTAssertEqual(rJournal.first?["tenant"] as? String, "R")
        XCTAssertEqual(rJournal.first?["answeredBy"] as? String, "mock")
        XCTAssertNotNil(defaultMockID)
        XCTAssertEqual(JSONNumber.int(rJournal.first?["mockId"]), defaultMockID)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).map { $0["tenant"] as? String }, [""])
    }

    func testRemoveAllByOneTenantLeavesOtherTenantsAndDefault() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: nil, url: "/api/profile", body: "shared fixture")
        try E2E.addMock(client, tenant: nil, url: "/api/settings", body: "shared settings")
        try E2E.addMock(client, tenant: "P", url: "/api/profile", body: "profile of P")
        try E2E.addMock(client, tenant: "P", url: "/api/only-p", body: "only P")
        try E2E.addMock(client, tenant: "Q", url: "/api/profile", body: "profile of Q")

        try E2E.removeAll(client, tenant: "P")

        XCTAssertEqual(try E2E.mocks(client, tenant: "P").count, 0)
        XCTAssertEqual(try E2E.mocks(client, tenant: "Q").map { $0["pattern"] as? [String: Any] }.count, 1)
        XCTAssertEqual(
            try E2E.mocks(client, tenant: nil).compactMap { ($0["pattern"] as? [String: Any])?["url"] as? [String: Any] }
                .compactMap { $0["value"] as? String },
            ["/api/profile", "/api/settings"])
        XCTAssertEqual(try client.request("GET", "/api/profile", headers: E2E.tenantHeader("Q")).text, "profile of Q")
        XCTAssertEqual(try client.request("GET", "/api/profile").text, "shared fixture")
        XCTAssertEqual(try client.request("GET", "/api/settings").text, "shared settings")
        // P now falls back to the default tenant; its own-only mock is gone.
        XCTAssertEqual(try client.request("GET", "/api/profile", headers: E2E.tenantHeader("P")).text, "shared fixture")
        XCTAssertEqual(try client.request("GET", "/api/only-p", headers: E2E.tenantHeader("P")).status, 404)
    }

    func testRemoveAllWithoutIdClearsOnlyTheDefaultTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: nil, url: "/api/profile", body: "shared fixture")
        try E2E.addMock(client, tenant: "P", url: "/api/profile", body: "profile of P")

        try E2E.removeAll(client, tenant: nil)

        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0)
        XCTAssertEqual(try E2E.mocks(client, tenant: "P").count, 1)
        XCTAssertEqual(try client.request("GET", "/api/profile", headers: E2E.tenantHeader("P")).text, "profile of P")
        XCTAssertEqual(try client.request("GET", "/api/profile").status, 404)
    }

    func testRemoveOfAPatternOnlyAnotherTenantHasChangesNothing() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "Q", url: "/api/only-q", body: "only Q")
        let before = try E2E.mocks(client, tenant: "Q")

        let remove = E2E.jsonText(["type": "remove", "pattern": E2E.pattern(url: "/api/only-q")])
        let answer = try client.json("POST", "/catbird/api/mocks", remove, headers: E2E.tenantHeader("P"))

        XCTAssertEqual(answer.status, 204, answer.text)
        let after = try E2E.mocks(client, tenant: "Q")
        XCTAssertEqual(after.count, 1)
        XCTAssertEqual(JSONNumber.int(after.first?["id"]), JSONNumber.int(before.first?["id"]))
        XCTAssertEqual(try client.request("GET", "/api/only-q", headers: E2E.tenantHeader("Q")).text, "only Q")
        // Nor does P's remove of a pattern only the default tenant has touch the default tenant.
        try E2E.addMock(client, tenant: nil, url: "/api/shared", body: "shared")
        let removeShared = E2E.jsonText(["type": "remove", "pattern": E2E.pattern(url: "/api/shared")])
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", removeShared, headers: E2E.tenantHeader("P")).status, 204)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1)
        XCTAssertEqual(try client.request("GET", "/api/shared", headers: E2E.tenantHeader("P")).text, "shared")
        // The same remove sent by Q does remove it: the pattern was right, only the tenant differed.
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", remove, headers: E2E.tenantHeader("Q")).status, 204)
        XCTAssertEqual(try E2E.mocks(client, tenant: "Q").count, 0)
    }

    func testMocksAndJournalListingsShowOnlyTheCallersTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/p/one", body: "1")
        try E2E.addMock(client, tenant: "P", url: "/p/two", body: "2")
        try E2E.addMock(client, tenant: "Q", url: "/q/one", body: "q")
        try E2E.addMock(client, tenant: nil, url: "/shared", body: "s")
        for target in ["/p/one", "/p/two", "/shared", "/q/one"] {
            _ = try client.request("GET", target, headers: E2E.tenantHeader("P"))
        }
        _ = try client.request("GET", "/q/one", headers: E2E.tenantHeader("Q"))
        _ = try client.request("GET", "/shared")

        let pList = try E2E.mockList(client, tenant: "P")
        XCTAssertEqual(pList["tenant"] as? String, "P")
        let pURLs = (pList["mocks"] as? [[String: Any]] ?? []).compactMap {
            (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String
        }
        XCTAssertEqual(pURLs, ["/p/one", "/p/two"])
        let qList = try E2E.mockList(client, tenant: "Q")
        XCTAssertEqual(qList["tenant"] as? String, "Q")
        XCTAssertEqual((qList["mocks"] as? [Any])?.count, 1)
        XCTAssertEqual(try E2E.mockList(client, tenant: nil)["tenant"] as? String, "")

        let pJournal = try E2E.journal(client, tenant: "P")
        XCTAssertEqual(pJournal.compactMap { $0["url"] as? String }, ["/p/one", "/p/two", "/shared", "/q/one"])
        XCTAssertEqual(Set(pJournal.compactMap { $0["tenant"] as? String }), ["P"])
        XCTAssertEqual(pJournal.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, [200, 200, 200, 404])
        let qJournal = try E2E.journal(client, tenant: "Q")
        XCTAssertEqual(qJournal.compactMap { $0["url"] as? String }, ["/q/one"])
        XCTAssertEqual(qJournal.first?["tenant"] as? String, "Q")
        let defaultJournal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(defaultJournal.compactMap { $0["url"] as? String }, ["/shared"])
        XCTAssertEqual(defaultJournal.first?["tenant"] as? String, "")
    }

    /// 50 tenants × 20 requests, one connection per thread, all at once: every answer is the
    /// tenant's own and every journal holds exactly its own 20 requests.
    func testFiftyConcurrentTenantsHaveNoCrossTalk() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let tenantCount = 50
        let requestsPerTenant = 20
        let setup = try server.client()
        // A shared fixture for the same URL: any fallback to it would show up as a wrong body.
        try E2E.addMock(setup, tenant: nil, url: "/api/concurrent", body: "default tenant")
        for index in 0..<tenantCount {
            try E2E.addMock(setup, tenant: "tenant-\(index)", url: "/api/concurrent", body: "body of tenant-\(index)")
        }

        let port = server.port
        let failures = Locked<[String]>([])
        let answered = Locked<[Int]>([])
        E2E.runOnThreads(tenantCount) { index in
            let tenant = "tenant-\(index)"
            do {
                let client = try RawHTTPClient(port: port)
                for request in 0..<requestsPerTenant {
                    let response = try client.request(
                        "GET", "/api/concurrent", headers: [("X-Catbird-Parallel-Id", tenant), ("X-Request-Number", "\(request)")])
                    if response.status != 200 || response.text != "body of \(tenant)" {
                        failures.append("\(tenant) request \(request): \(response.status) \(response.text)")
                    } else {
                        answered.append(index)
                    }
                }
            } catch {
                failures.append("\(tenant): \(error)")
            }
        }

        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(answered.value.count, tenantCount * requestsPerTenant)
        let reader = try server.client()
        for index in 0..<tenantCount {
            let tenant = "tenant-\(index)"
            let page = try E2E.journalPage(reader, tenant: tenant, query: "limit=1000")
            let entries = page["requests"] as? [[String: Any]] ?? []
            XCTAssertEqual(entries.count, requestsPerTenant, tenant)
            XCTAssertEqual(page["hasMore"] as? Bool, false, tenant)
            XCTAssertEqual(Set(entries.compactMap { $0["tenant"] as? String }), [tenant])
            XCTAssertEqual(
                Set(entries.compactMap { ($0["response"] as? [String: Any])?["body"] as? String }), ["body of \(tenant)"])
            let numbers = entries.compactMap { (($0["request"] as? [String: Any])?["headers"] as? [String: String])?["X-Request-Number"] }
            XCTAssertEqual(numbers, (0..<requestsPerTenant).map(String.init), "\(tenant): its own requests, in order")
            let counted = try E2E.count(
                reader, tenant: tenant, patternJSON: #"{"method":"GET","url":{"kind":"equal","value":"/api/concurrent"},"headers":{}}"#)
            XCTAssertEqual(counted, requestsPerTenant, tenant)
        }
        XCTAssertEqual(try E2E.journal(reader, tenant: nil).count, 0, "nothing was journaled under the default tenant")
        let summaries = try E2E.tenants(reader)
        XCTAssertEqual(summaries.count, tenantCount + 1)
        for summary in summaries where summary["id"] as? String != "" {
            XCTAssertEqual(JSONNumber.int(summary["requests"]), requestsPerTenant, "\(summary)")
            XCTAssertEqual(JSONNumber.int(summary["mocks"]), 1, "\(summary)")
        }
    }

    /// RFC 9110 §5.5: a field value does not include leading or trailing whitespace, so
    /// `X-Catbird-Parallel-Id: P  ` names tenant "P".
    func testWhitespaceAroundTheParallelIdIsNotPartOfTheTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/api/profile", body: "profile of P")

        let leading = try client.request("GET", "/api/profile", headers: [("X-Catbird-Parallel-Id", "   P")])
        XCTAssertEqual(leading.text, "profile of P")
        let trailing = try client.request("GET", "/api/profile", headers: [("X-Catbird-Parallel-Id", "P   ")])
        XCTAssertEqual(trailing.status, 200, trailing.text)
        XCTAssertEqual(trailing.text, "profile of P")
        XCTAssertEqual(try E2E.tenants(client).compactMap { $0["id"] as? String }, ["", "P"])
        XCTAssertEqual(try E2E.journal(client, tenant: "P").count, 2)
    }
}
