import CatbirdTestSupport
import Foundation
import XCTest

/// tester41a-F6: `/catbird/metrics` showed nothing of the connection slots: one tenant's
/// stalled uploads or unread downloads held every slot, and the scrape looked like a healthy
/// host's. It now shows the connections open against the limit, how often every slot was
/// taken, and the connections the server closed itself, by why.
final class ConnectionSlotMetricsTests: XCTestCase {
    func testTheScrapeShowsTheSlotsFillingAndTheConnectionsClosedToMakeRoom() throws {
        let server = try TestServer { $0.connectionLimit = 20 }
        defer { server.removeFiles() }
        var metrics = try E2E.metrics(try server.client())
        XCTAssertEqual(metrics["catbird_connections_limit"], 20, "\(metrics.filter { $0.key.hasPrefix("catbird_conn") })")
        XCTAssertEqual(metrics["catbird_connection_limit_reached_total"], 0)
        XCTAssertEqual(metrics["catbird_connections_closed_total{reason=\"idle_for_room\"}"], 0)

        // 25 clients that connect and send nothing: every slot taken, five more waiting.
        let idle = try (0..<25).map { _ in try server.client() }
        defer { withExtendedLifetime(idle) {} }
        Thread.sleep(forTimeInterval: 1.5)
        let scraper = try server.client()
        metrics = try E2E.metrics(scraper)
        let shown = metrics.filter { $0.key.hasPrefix("catbird_conn") }
        XCTAssertGreaterThanOrEqual(metrics["catbird_connection_limit_reached_total"] ?? 0, 1, "\(shown)")
        XCTAssertGreaterThanOrEqual(metrics["catbird_connections_closed_total{reason=\"idle_for_room\"}"] ?? 0, 1, "\(shown)")
        XCTAssertEqual(metrics["catbird_connections_closed_total{reason=\"upload_over_share\"}"], 0, "\(shown)")
        XCTAssertEqual(metrics["catbird_connections_closed_total{reason=\"keep_alive_over_share\"}"], 0, "connections that never sent a request belong to no tenant: none closed as a tenant's past its share \(shown)")
        let open = metrics["catbird_connections"] ?? 0
        XCTAssertTrue((2...20).contains(open), "the scrape's own and the idle ones left, never past the limit: \(shown)")
    }
}
