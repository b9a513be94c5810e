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
        // Nothing was removed; the mock is still served, under any Host (an app under test).
        XCTAssertEqual(try client.request("GET", "/kept", headers: [("Host", evil)]).text, "kept")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")
    }

    /// Regression (T11-F8, the tester's exact `Host` values): an empty `Host` was told to give
    /// `--allowed-host ` (no name) and `Host: 127.0.0.1 evil` to give `--allowed-host 127.0.0.1
    /// evil`; the command line refuses both. The option is now suggested only with a value it accepts.
    /// An empty one is shown as `""` (T18A-F8: `the Host  is not a name …` read as a typo).
    func testA403SuggestsOnlyANameTheCommandLineAccepts() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for host in ["", "127.0.0.1 evil"] {
            let refused = try client.request("GET", "/catbird/api/tenants", headers: [("Host", host)])
            XCTAssertEqual(refused.status, 403, refused.text)
            XCTAssertEqual(
                refused.object["reason"] as? String,
                "the Host \(host.isEmpty ? "\"\"" : host) is not a name this server answers its control routes under: listening on a loopback address, it "
                    + "answers them for IP addresses, localhost and --allowed-host names only, so that a web page cannot reach them "
                    + "through a rebound DNS name; it is not a name --allowed-host can list (docs/files.md#host-names)")
            XCTAssertFalse(CatbirdServer.Settings.isListableHost(host), "the rule the command line applies")
        }
        XCTAssertTrue(CatbirdServer.Settings.isListableHost("evil.example"))
    }

    /// Tester finding try9b F1, the exact requests: a browser proxied through a `--proxy` server
    /// sends a page's own `/catbird/…` calls in absolute form under the page's name; they listed
    /// every tenant's journal and `DELETE …/tenants?all=true` dropped every tenant (204).
    func testAnAbsoluteFormControlRequestIsCheckedByItsTargetsHost() throws {
        let server = try TestServer { $0.proxyEnabled = true }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "victim", url: "/kept", body: "kept")
        let page = [("Host", "evil.test"), ("Origin", "http://evil.test")]
        let tenants = try client.request("GET", "http://evil.test/catbird/api/tenants", headers: page)
        XCTAssertEqual(tenants.status, 403, tenants.text)
        XCTAssertTrue((tenants.object["reason"] as? String ?? "").hasPrefix("the Host evil.test is not a name"), tenants.text)
        let journal = try client.request(
            "GET", "http://evil.test/catbird/api/requests", headers: page + [("X-Catbird-Parallel-Id", "victim")])
        XCTAssertEqual(journal.status, 403, journal.text)
        let drop = try client.request("DELETE", "http://evil.test/catbird/api/tenants?all=true", headers: page)
        XCTAssertEqual(drop.status, 403, drop.text)
        // The target's host counts, not Host: a loopback Host does not let a foreign target through,
        // and userinfo does not hide the name.
        XCTAssertEqual(try client.request("GET", "http://evil.test:80/catbird/api/tenants", headers: [("Host", "127.0.0.1")]).status, 403)
        XCTAssertEqual(try client.request("GET", "http://127.0.0.1@evil.test/catbird/api/tenants", headers: [("Host", "127.0.0.1")]).status, 403)
        // The server's own names in absolute form are answered (a proxy client reaching the routes).
        for target in ["http://127.0.0.1:\(server.port)/catbird/api/tenants", "http://localhost:\(server.port)/catbird/api/tenants",
                       "HTTP://[::1]:\(server.port)/catbird/api/tenants"] {
            let answer = try client.request("GET", target, headers: [("Host", "evil.test")])
            XCTAssertEqual(answer.status, 200, "\(target): \(answer.text)")
        }
        XCTAssertEqual(try client.request("GET", "/kept", headers: [("X-Catbird-Parallel-Id", "victim")]).text, "kept", "nothing dropped")
        let listed = try TestServer {
            $0.proxyEnabled = true
            $0.allowedHosts = ["mocks.test"]
        }
        defer { listed.removeFiles() }
        XCTAssertEqual(try listed.client().request("GET", "http://mocks.test/catbird/api/tenants", headers: [("Host", "mocks.test")]).status, 200)
    }

    /// Tester finding tester46c-F4, the exact requests: through a `--proxy` server an absolute
    /// target at any IP address (v4 or v6, any port) was answered by the control routes, so a
    /// page a proxied browser loaded from `http://203.0.113.5/` listed every tenant, read a
    /// shard's journal and dropped every tenant (204), with `--cors` too. Only this machine's
    /// addresses are answered in proxy form now; in `Host` any address still is.
    func testAProxyFormControlRequestToAnotherMachinesAddressIsRefused() throws {
        for cors in [false, true] {
            let server = try TestServer {
                $0.proxyEnabled = true
                $0.cors = cors
            }
            defer { server.removeFiles() }
            let client = try server.client()
            try E2E.addMock(client, tenant: "victim", url: "/kept", body: "kept")
            // tester47a-F8: `010.0.2.2` is 8.0.2.2 to clients (octal), not the emulator's 10.0.2.2.
            for site in ["http://203.0.113.5", "http://203.0.113.5:8080", "http://[2001:db8::1]", "http://[::ffff:203.0.113.5]",
                         "http://010.0.2.2", "http://010.000.002.002", "http://127.0.0.01"] {
                let page = [("Origin", site)]
                let tenants = try client.request("GET", site + "/catbird/api/tenants", headers: page)
                XCTAssertEqual(tenants.status, 403, "\(site): \(tenants.text)")
                XCTAssertTrue((tenants.object["reason"] as? String ?? "").contains("of a proxy-form target is not one of this machine's"), tenants.text)
                XCTAssertNil(tenants.header("Access-Control-Allow-Origin"), site)
                let journal = try client.request("GET", site + "/catbird/api/requests", headers: page + [("X-Catbird-Parallel-Id", "victim")])
                XCTAssertEqual(journal.status, 403, "\(site): \(journal.text)")
                XCTAssertEqual(try client.request("DELETE", site + "/catbird/api/tenants?all=true", headers: page).status, 403, site)
            }
            XCTAssertEqual(try client.request("GET", "/kept", headers: [("X-Catbird-Parallel-Id", "victim")]).text, "kept", "nothing dropped")
            // This machine's addresses in proxy form, and any address in Host, are answered.
            for target in ["http://127.0.0.1:\(server.port)", "http://127.1.2.3:\(server.port)", "http://[::1]:\(server.port)",
                           "http://[::ffff:127.0.0.1]:\(server.port)", "http://10.0.2.2:\(server.port)"] {
                XCTAssertEqual(try client.request("GET", target + "/catbird/api/tenants").status, 200, target)
            }
            XCTAssertEqual(try client.request("GET", "/catbird/api/tenants", headers: [("Host", "203.0.113.5")]).status, 200)
        }
        let listed = try TestServer {
            $0.proxyEnabled = true
            $0.allowedHosts = ["203.0.113.5"]
        }
        defer { listed.removeFiles() }
        XCTAssertEqual(try listed.client().request("GET", "http://203.0.113.5:81/catbird/api/tenants").status, 200)
    }

    /// Reviewer finding (mend14c 3): the control-path check found an absolute-form target's
    /// path with its own `://` scanner, which accepted any scheme and did not end the authority
    /// at `#`, while the host check reads it as every other reader does (``URIAuthority/Span``):
    /// `GET http://127.0.0.1#x/catbird/api/mocks` (a fragment, no path) and
    /// `GET ftp://127.0.0.1/catbird/api/mocks` were answered as control calls (200, the mocks).
    /// Neither names a control path: each is a request for the mocks, a 404 here.
    func testOnlyAnHTTPTargetsPathAfterItsAuthorityIsAControlPath() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for target in ["http://127.0.0.1#x/catbird/api/mocks", "ftp://127.0.0.1/catbird/api/mocks"] {
            let answer = try client.request("GET", target)
            XCTAssertEqual(answer.status, 404, "\(target): \(answer.text)")
            XCTAssertNil(answer.object["mocks"], "\(target): not the mocks' list: \(answer.text)")
        }
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 2, "both journaled as requests for the mocks")
        XCTAssertEqual(try client.request("GET", "http://127.0.0.1/catbird/api/mocks").status, 200, "a control path in absolute form")
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
