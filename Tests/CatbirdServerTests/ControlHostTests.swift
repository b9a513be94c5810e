import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// The control routes answer only the server's own host names while it listens on loopback, so
/// a web page cannot reach them through a rebound DNS name (docs/files.md#host-names; tester
/// finding try8b F7).
final class ControlHostTests: XCTestCase {
    /// The exact report: `Host: evil.example:PORT` with the same `Origin` (a page whose name was
    /// rebound to 127.0.0.1) listed every tenant and removed the default tenant's mocks.
    func testARequestUnderAnotherNameIsRefusedOnLoopback() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/kept", body: "kept")
        let evil = "evil.example:\(server.port)"
        let page = [("Host", evil), ("Origin", "http://\(evil)")]
        let tenants = try client.request("GET", "/catbird/api/tenants", headers: page)
        XCTAssertEqual(tenants.status, 403, tenants.text)
        XCTAssertEqual(tenants.object["error"] as? Bool, true)
        XCTAssertEqual(
            tenants.object["reason"] as? String,
            "the Host \(evil) is not a name this server answers its control routes under: listening on a loopback address, it "
                + "answers them for IP addresses, localhost and --allowed-host names only, so that a web page cannot reach them "
                + "through a rebound DNS name; give --allowed-host evil.example if that name is this machine's (docs/files.md#host-names)")
        let removal = try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: page)
        XCTAssertEqual(removal.status, 403, removal.text)
        XCTAssertEqual(try client.request("GET", "/catbird", headers: [("Host", "EVIL.example.")]).status, 403, "the page too")
        // A proxy client's absolute-form request carries the upstream's Host: answered.
        XCTAssertEqual(try client.request("GET", "http://api.example.invalid/catbird/api/tenants", headers: [("Host", "api.example.invalid")]).status, 200)
        // Nothing was removed; the mock is still served, under any Host (an app under test).
        XCTAssertEqual(try client.request("GET", "/kept", headers: [("Host", evil)]).text, "kept")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")
    }

    func testIPAddressesLocalhostAndNoHostAreAnswered() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for host in ["127.0.0.1", "127.0.0.1:\(server.port)", "[::1]:\(server.port)", "10.0.2.2:8080", "localhost", "LOCALHOST:\(server.port)",
                     "localhost.", "app.localhost:\(server.port)", "127.0.0.1.:\(server.port)"] {
            let answer = try client.request("GET", "/catbird/api/tenants", headers: [("Host", host)])
            XCTAssertEqual(answer.status, 200, "\(host): \(answer.text)")
        }
        for host in ["localhost.evil.example", "127.0.0.1.evil.example", "1.2.3", "evil-localhost"] {
            XCTAssertEqual(try client.request("GET", "/catbird/api/tenants", headers: [("Host", host)]).status, 403, host)
        }
        let bare = try server.client()
        try bare.send(raw: Array("GET /catbird/api/tenants HTTP/1.0\r\n\r\n".utf8))
        let raw = String(decoding: bare.readToEnd(), as: UTF8.self)
        XCTAssertTrue(raw.hasPrefix("HTTP/1.0 200") || raw.hasPrefix("HTTP/1.1 200"), raw)
    }

    func testAllowedHostsAndServersBeyondLoopback() throws {
        let listed = try TestServer { $0.allowedHosts = ["CI-Mocks.internal"] }
        defer { listed.removeFiles() }
        let client = try listed.client()
        XCTAssertEqual(try client.request("GET", "/catbird/api/tenants", headers: [("Host", "ci-mocks.internal:\(listed.port)")]).status, 200)
        XCTAssertEqual(try client.request("GET", "/catbird/api/tenants", headers: [("Host", "other.internal")]).status, 403)

        let any = try TestServer { $0.allowedHosts = ["*"] }
        defer { any.removeFiles() }
        XCTAssertEqual(try any.client().request("GET", "/catbird/api/tenants", headers: [("Host", "evil.example")]).status, 200)

        // A fleet's shared host, reached under its DNS name: no name checked unless listed.
        let fleet = try TestServer { $0.host = "0.0.0.0" }
        defer { fleet.removeFiles() }
        XCTAssertEqual(try fleet.client().request("GET", "/catbird/api/tenants", headers: [("Host", "ci-mocks.internal")]).status, 200)
        let fleetListed = try TestServer {
            $0.host = "0.0.0.0"
            $0.allowedHosts = ["ci-mocks.internal"]
        }
        defer { fleetListed.removeFiles() }
        let fleetClient = try fleetListed.client()
        XCTAssertEqual(try fleetClient.request("GET", "/catbird/api/tenants", headers: [("Host", "ci-mocks.internal")]).status, 200)
        XCTAssertEqual(try fleetClient.request("GET", "/catbird/api/tenants", headers: [("Host", "evil.example")]).status, 403)
        XCTAssertEqual(try fleetClient.request("GET", "/catbird/api/tenants", headers: [("Host", "127.0.0.1")]).status, 200)
    }
}
