import CatbirdTestSupport
import Foundation
import XCTest

/// Journal pages leave no prepared statements behind in the server's memory.
final class JournalPageStatementMemoryTests: XCTestCase {
    /// Regression (tester finding tester32b-F2, its steps scaled): tenants that each add a mock,
    /// send 20 requests nothing answers, list their journal once
    /// (`GET /catbird/api/requests?limit=1000&bodies=false`) and drop themselves kept about
    /// 95 KB each in the server for good (1,000 tenants: +97 MB; four bursts of 800: 38 to 352
    /// MB): every page's statement had its ids written into its SQL text, and each new text
    /// was prepared and cached on its read connection. Here 300 such tenants after 100 of warm-up
    /// (more than 10 MB before); the ids are now bound (one text for every page), each
    /// connection's cache is bounded too, and the process's resident memory stays within a few
    /// megabytes.
    func testTenantsListingTheirJournalOnceDoNotGrowTheServersMemory() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let pid = server.process.processIdentifier
            func churn(_ tenants: Range<Int>) throws {
                for index in tenants {
                    let tenant = "leak-\(index)"
                    let header = E2E.tenantHeader(tenant)
                    try E2E.addMock(client, tenant: tenant, url: "/e", body: "x")
                    for _ in 0..<20 { XCTAssertEqual(try client.request("GET", "/zz", headers: header).status, 404) }
                    let page = try client.request("GET", "/catbird/api/requests?limit=1000&bodies=false", headers: header)
                    XCTAssertEqual((page.object["requests"] as? [Any])?.count, 20, String(page.text.prefix(200)))
                    XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/\(tenant)", headers: header).status, 204)
                }
            }
            try churn(0..<100)
            let before = try Self.residentKiB(of: pid)
            try churn(100..<400)
            let after = try Self.residentKiB(of: pid)
            XCTAssertLessThan(after - before, 10_000, "VmRSS \(before) kB before 300 tenants, \(after) kB after")
        }
    }

    /// `VmRSS` of process `pid`, in KiB.
    static func residentKiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
