import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// An `https://` upstream (docs/files.md#redirect-and-proxy): a real TLS server
/// (`Tests/Upstream/upstream.py --tls`) with a self-signed certificate for `localhost` made by
/// `openssl` here. Catbird sends the upstream's own Host and SNI, verifies the certificate
/// against `--upstream-ca-file`, and refuses it (502) without.
final class HTTPSUpstreamTests: XCTestCase {
    private var directory: URL!
    private var upstream: Upstream!
    private var certificate: String { directory.appendingPathComponent("cert.pem").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        let made = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
             "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
            in: directory)
        try XCTSkipIf(made.status == 127, "openssl is not installed (scripts/setup.sh installs it)")
        XCTAssertEqual(made.status, 0, made.output)
        upstream = try Upstream(tls: (certificate, key))
    }

    override func tearDown() {
        upstream?.stop()
        upstream = nil
        try? FileManager.default.removeItem(at: directory)
    }

    func testRedirectToHTTPSSendsTheUpstreamsHostAndSNI() throws {
        let server = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL + "/v1"
            settings.upstreamCAFile = self.certificate
        }
        let answer = try CurlClient.run(["-H", "Host: app.example", "http://127.0.0.1:\(server.port)/echo/secure?q=1"])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["path"] as? String, "/v1/echo/secure?q=1")
        XCTAssertEqual(answer.object["sni"] as? String, "localhost", "TLS SNI is the upstream's name")
        let hosts = (answer.object["headers"] as? [[String]] ?? []).filter { $0.first?.lowercased() == "host" }.map { $0.last }
        XCTAssertEqual(hosts, ["localhost:\(upstream.port)"], "the upstream's own Host, not the client's")
        let forwardedHost = (answer.object["headers"] as? [[String]] ?? []).first { $0.first?.lowercased() == "x-forwarded-host" }?.last
        XCTAssertEqual(forwardedHost, "app.example")
    }

    func testProxyFormHTTPSTargetIsSentOverTLS() throws {
        let server = try TestServer { settings in
            settings.proxyEnabled = true
            settings.upstreamCAFile = self.certificate
        }
        let answer = try server.client().request(
            "GET", "\(upstream.baseURL)/echo/proxied", headers: [("Host", "localhost:\(upstream.port)")])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["sni"] as? String, "localhost")
    }

    func testAnUntrustedCertificateIsA502NotASilentlyTrustedAnswer() throws {
        let server = try TestServer { settings in settings.redirectURL = self.upstream.baseURL }
        let answer = try server.client().request("GET", "/echo/untrusted")
        E2E.assertError(answer, status: 502, reasonContains: "certificate")
        // Tester finding try8a F3: the reason was "upstream unreachable: … SSL peer certificate or
        // SSH remote key was not OK" (libcurl's generic text): the upstream was reached; say what
        // was wrong with its certificate and what fixes it.
        let reason = answer.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("upstream certificate not trusted: upstream \(upstream.baseURL)/echo/untrusted: "), reason)
        XCTAssertTrue(reason.localizedCaseInsensitiveContains("self-signed") || reason.localizedCaseInsensitiveContains("self signed"), reason)
        XCTAssertTrue(reason.hasSuffix("give its CA certificate with --upstream-ca-file (CATBIRD_UPSTREAM_CA_FILE) (docs/files.md#redirect-and-proxy)"), reason)
        XCTAssertFalse(reason.contains("SSH"), reason)
    }
}
