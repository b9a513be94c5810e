import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A HAR export's page counts in the buffered-body budget (`--max-buffered-bodies`) until its
/// client has read it (docs/protocol.md#har-export, docs/operations.md#connections-and-memory).
final class HARExportBudgetTests: XCTestCase {
    private static let mebibyte = 1 << 20

    /// Regression (tester finding tester27a-F1): 8 tenants' 80 journaled 80 KB uploads each,
    /// then 4 `GET /catbird/api/requests.har` per tenant from clients with a 2 KiB receive
    /// buffer that never read: each export held about 3 MB for the 120 s idle timeout, counted
    /// nowhere (32 of them: 96 MB). Scaled to an 8 MiB budget: 4 tenants' 80 uploads of 64 KiB,
    /// 2 unread exports per tenant, each holding a page of about 1 MiB: those the budget cannot
    /// count get the 503 naming the option; once the stalled clients are gone, an export is
    /// answered again.
    func testUnreadExportsPastTheBudgetGet503() throws {
        let server = try TestServer {
            $0.maxBodySize = Self.mebibyte
            $0.maxBufferedBodies = 8 * Self.mebibyte
        }
        defer { server.removeFiles() }
        let client = try server.client()
        let body = [UInt8](repeating: UInt8(ascii: "h"), count: 64 << 10)
        let tenants = (0..<4).map { "hs\($0)" }
        for tenant in tenants {
            for index in 0..<80 {
                let upload = try client.request("POST", "/up/\(index)", headers: [("X-Catbird-Parallel-Id", tenant)], body: body)
                XCTAssertEqual(upload.status, 404)
            }
        }

        var stalled: [RawHTTPClient] = []
        var statuses: [String] = []
        for tenant in tenants + tenants {
            let export = try RawHTTPClient(port: server.port, timeoutSeconds: 30, receiveBuffer: 2048)
            try export.send("GET", "/catbird/api/requests.har", headers: [("X-Catbird-Parallel-Id", tenant)])
            let head = String(decoding: export.read(upTo: 400, within: 5), as: UTF8.self)
            statuses.append(String(head.prefix(12)))
            if head.hasPrefix("HTTP/1.1 503") {
                XCTAssertTrue(head.contains("--max-buffered-bodies"), head)
            }
            stalled.append(export)
        }
        XCTAssertTrue(statuses.allSatisfy { $0 == "HTTP/1.1 200" || $0 == "HTTP/1.1 503" }, "\(statuses)")
        XCTAssertGreaterThanOrEqual(statuses.filter { $0 == "HTTP/1.1 200" }.count, 4, "\(statuses)")
        XCTAssertGreaterThanOrEqual(statuses.filter { $0 == "HTTP/1.1 503" }.count, 1, "unread pages past the budget: \(statuses)")

        for export in stalled { export.hangUp() }
        let deadline = ContinuousClock.now + .seconds(10)
        var again = try client.request("HEAD", "/catbird/api/requests.har", headers: [("X-Catbird-Parallel-Id", "hs0")])
        while again.status != 200, ContinuousClock.now < deadline {
            usleep(100_000)
            again = try client.request("HEAD", "/catbird/api/requests.har", headers: [("X-Catbird-Parallel-Id", "hs0")])
        }
        XCTAssertEqual(again.status, 200, "the hung-up exports' bytes are given back: \(again.text)")
    }
}
