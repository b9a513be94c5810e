import CatbirdAppSupport
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reading the configuration the test process hands to the app, and aiming requests at Catbird.
final class CatbirdAppConfigurationTests: XCTestCase {
    private typealias Keys = CatbirdAppConfiguration.LaunchKeys

    // MARK: - The contract with the test-side client

    func testTheLaunchKeysAreTheAgreedNames() {
        XCTAssertEqual(Keys.urlArgument, "-catbird_url")
        XCTAssertEqual(Keys.parallelIdArgument, "-catbird_parallel_id")
        XCTAssertEqual(Keys.urlEnvironment, "CATBIRD_URL")
        XCTAssertEqual(Keys.parallelIdEnvironment, "CATBIRD_PARALLEL_ID")
        XCTAssertEqual(CatbirdAppConfiguration.parallelIdHeader, "X-Catbird-Parallel-Id")
    }

    // MARK: - Reading arguments and environment

    func testNothingHandedOverMeansNoConfiguration() {
        XCTAssertNil(CatbirdAppConfiguration(arguments: ["/App"], environment: [:]))
        XCTAssertNil(CatbirdAppConfiguration(arguments: ["/App", "-catbird_parallel_id", "s1"], environment: ["CATBIRD_PARALLEL_ID": "s1"]))
    }

    func testReadsLaunchArguments() throws {
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", "http://127.0.0.1:8080", "-catbird_parallel_id", "shard-1", "feed"],
            environment: [:]))
        XCTAssertEqual(configuration.serverURL.absoluteString, "http://127.0.0.1:8080")
        XCTAssertEqual(configuration.parallelId, "shard-1")
        XCTAssertEqual(configuration.headers, ["X-Catbird-Parallel-Id": "shard-1"])
        XCTAssertEqual(configuration.description, "Catbird at http://127.0.0.1:8080 (parallel id shard-1)")
    }

    func testReadsTheEnvironment() throws {
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App"], environment: ["CATBIRD_URL": "http://localhost:9000", "CATBIRD_PARALLEL_ID": "7"]))
        XCTAssertEqual(configuration.serverURL.absoluteString, "http://localhost:9000")
        XCTAssertEqual(configuration.parallelId, "7")
    }

    func testArgumentsWinOverTheEnvironmentKeyByKey() throws {
        let both = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", "http://127.0.0.1:1111", "-catbird_parallel_id", "from-args"],
            environment: ["CATBIRD_URL": "http://127.0.0.1:2222", "CATBIRD_PARALLEL_ID": "from-env"]))
        XCTAssertEqual(both.serverURL.port, 1111)
        XCTAssertEqual(both.parallelId, "from-args")

        let mixed = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", "http://127.0.0.1:1111"], environment: ["CATBIRD_PARALLEL_ID": "from-env"]))
        XCTAssertEqual(mixed.parallelId, "from-env")
    }

    func testReadsCatbird011sLaunchArguments() throws {
        // The 0.11 README's set-up: `-url_key <url>` and `-parallelId <id>`.
        let legacy = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-url_key", "http://127.0.0.1:8080", "-parallelId", "0F8C-UUID"], environment: [:]))
        XCTAssertEqual(legacy.serverURL.absoluteString, "http://127.0.0.1:8080")
        XCTAssertEqual(legacy.parallelId, "0F8C-UUID")
        XCTAssertEqual(Keys.legacyURLArgument, "-url_key")
        XCTAssertEqual(Keys.legacyParallelIdArgument, "-parallelId")

        // Ours first, then 0.11's, then the environment, key by key.
        let mixed = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-url_key", "http://127.0.0.1:1", "-catbird_url", "http://127.0.0.1:2", "-parallelId", "old"],
            environment: ["CATBIRD_URL": "http://127.0.0.1:3", "CATBIRD_PARALLEL_ID": "env"]))
        XCTAssertEqual(mixed.serverURL.port, 2)
        XCTAssertEqual(mixed.parallelId, "old")
        let overEnvironment = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-url_key", "http://127.0.0.1:1"], environment: ["CATBIRD_URL": "http://127.0.0.1:3"]))
        XCTAssertEqual(overEnvironment.serverURL.port, 1)
    }

    func testTheLastOccurrenceOfAnArgumentCounts() throws {
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", "http://127.0.0.1:1", "-catbird_url", "http://127.0.0.1:2",
                        "-catbird_parallel_id", "a", "-catbird_parallel_id", "b"],
            environment: [:]))
        XCTAssertEqual(configuration.serverURL.port, 2)
        XCTAssertEqual(configuration.parallelId, "b")
    }

    func testInvalidURLsAreIgnored() {
        let invalid = ["", "   ", "127.0.0.1:8080", "localhost:8080", "ftp://127.0.0.1/", "http://", "/just/a/path", "not a url"]
        for value in invalid {
            XCTAssertNil(CatbirdAppConfiguration(arguments: ["/App", "-catbird_url", value], environment: [:]), "argument '\(value)'")
            XCTAssertNil(CatbirdAppConfiguration(arguments: ["/App"], environment: ["CATBIRD_URL": value]), "environment '\(value)'")
        }
    }

    func testAnInvalidArgumentFallsBackToTheEnvironment() throws {
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", "nonsense"], environment: ["CATBIRD_URL": "http://127.0.0.1:3333"]))
        XCTAssertEqual(configuration.serverURL.port, 3333)
    }

    func testAKeyWithoutAValueIsIgnored() throws {
        XCTAssertNil(CatbirdAppConfiguration(arguments: ["/App", "-catbird_url"], environment: [:]))
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", "http://127.0.0.1:8080", "-catbird_parallel_id"], environment: [:]))
        XCTAssertNil(configuration.parallelId)
    }

    func testAnEmptyParallelIdIsTheDefaultTenant() throws {
        for id in [""] {
            let configuration = try XCTUnwrap(CatbirdAppConfiguration(
                arguments: ["/App", "-catbird_url", "http://127.0.0.1:8080", "-catbird_parallel_id", id], environment: [:]))
            XCTAssertNil(configuration.parallelId, "'\(id)'")
            XCTAssertEqual(configuration.headers, [:])
            XCTAssertTrue(configuration.description.hasSuffix("(default tenant)"), configuration.description)
        }
    }

    func testTheServerURLIsNormalized() throws {
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App", "-catbird_url", " HTTP://127.0.0.1:8080/?x=1#top "], environment: [:]))
        XCTAssertEqual(configuration.serverURL.absoluteString, "http://127.0.0.1:8080")
        XCTAssertEqual(CatbirdAppConfiguration(serverURL: URL(string: "https://mocks.local/catbird//")!)?.serverURL.absoluteString,
                       "https://mocks.local/catbird")
        XCTAssertNil(CatbirdAppConfiguration(serverURL: URL(string: "file:///tmp/x")!))
    }

    func testCurrentReadsThisProcess() {
        // The test runner is launched without a Catbird URL unless the environment has one.
        let expected = CatbirdAppConfiguration(arguments: ProcessInfo.processInfo.arguments, environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(CatbirdAppConfiguration.current, expected)
    }

    // MARK: - Aiming requests at Catbird

    private let catbird = CatbirdAppConfiguration(serverURL: URL(string: "http://127.0.0.1:8080")!, parallelId: "s1")!

    func testURLForKeepsPathQueryAndFragment() {
        let cases: [(String, String)] = [
            ("https://api.example.com/v1/feed?page=2#top", "http://127.0.0.1:8080/v1/feed?page=2#top"),
            ("https://api.example.com", "http://127.0.0.1:8080/"),
            ("http://user:secret@api.example.com:8443/a%20b/c?q=a%2Fb&x=%26", "http://127.0.0.1:8080/a%20b/c?q=a%2Fb&x=%26"),
            ("https://API.example.com/login", "http://127.0.0.1:8080/login"),
        ]
        for (original, expected) in cases {
            XCTAssertEqual(catbird.url(for: URL(string: original)!).absoluteString, expected, original)
        }
    }

    func testURLForPutsTheServersPathInFront() throws {
        let proxied = try XCTUnwrap(CatbirdAppConfiguration(serverURL: URL(string: "https://ci.example/catbird/")!))
        XCTAssertEqual(proxied.url(for: URL(string: "https://api.example.com/api/feed?x=1")!).absoluteString,
                       "https://ci.example/catbird/api/feed?x=1")
        // Already aimed at the server: unchanged, so redirecting twice is harmless.
        let once = proxied.url(for: URL(string: "https://api.example.com/api/feed")!)
        XCTAssertEqual(proxied.url(for: once), once)
    }

    func testURLForLeavesOtherSchemesAndTheServerAlone() {
        for text in ["file:///tmp/a.json", "data:text/plain,hi", "http://127.0.0.1:8080/api/feed", "HTTP://127.0.0.1:8080/x"] {
            let url = URL(string: text)!
            XCTAssertEqual(catbird.url(for: url), url, text)
        }
        let atDefaultPort = CatbirdAppConfiguration(serverURL: URL(string: "http://mocks.local")!)!
        XCTAssertEqual(atDefaultPort.url(for: URL(string: "http://mocks.local:80/x")!).absoluteString, "http://mocks.local:80/x")
    }

    func testURLForResolvesRelativeURLs() {
        let relative = URL(string: "api/feed?x=1", relativeTo: URL(string: "https://api.example.com/v2/")!)!
        XCTAssertEqual(catbird.url(for: relative).absoluteString, "http://127.0.0.1:8080/v2/api/feed?x=1")
        XCTAssertEqual(catbird.url(for: URL(string: "/api/feed")!).absoluteString, "http://127.0.0.1:8080/api/feed")
    }

    func testRedirectKeepsTheRequestAndAddsTheHeader() {
        var request = URLRequest(url: URL(string: "https://api.example.com/api/createPost?draft=1")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"text":"hi"}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("other", forHTTPHeaderField: "X-Catbird-Parallel-Id")
        request.timeoutInterval = 7
        let redirected = catbird.redirect(request)
        XCTAssertEqual(redirected.url?.absoluteString, "http://127.0.0.1:8080/api/createPost?draft=1")
        XCTAssertEqual(redirected.httpMethod, "POST")
        XCTAssertEqual(redirected.httpBody, request.httpBody)
        XCTAssertEqual(redirected.timeoutInterval, 7)
        XCTAssertEqual(redirected.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(redirected.value(forHTTPHeaderField: "X-Catbird-Parallel-Id"), "s1")
        XCTAssertEqual(catbird.redirect(redirected), redirected)

        let defaultTenant = CatbirdAppConfiguration(serverURL: URL(string: "http://127.0.0.1:8080")!)!
        XCTAssertNil(defaultTenant.redirect(URLRequest(url: URL(string: "https://api.example.com/")!))
            .value(forHTTPHeaderField: "X-Catbird-Parallel-Id"))
    }

    func testSessionConfigurationAddsTheHeaderToACopy() throws {
        let base = URLSessionConfiguration.ephemeral
        base.httpAdditionalHeaders = ["User-Agent": "FeedApp/1.0"]
        base.timeoutIntervalForRequest = 12
        let configuration = catbird.sessionConfiguration(base)
        XCTAssertFalse(configuration === base)
        let headers = try XCTUnwrap(configuration.httpAdditionalHeaders as? [String: String])
        XCTAssertEqual(headers, ["User-Agent": "FeedApp/1.0", "X-Catbird-Parallel-Id": "s1"])
        XCTAssertEqual(configuration.timeoutIntervalForRequest, 12)
        XCTAssertEqual(base.httpAdditionalHeaders as? [String: String], ["User-Agent": "FeedApp/1.0"], "base unchanged")

        let defaultTenant = CatbirdAppConfiguration(serverURL: URL(string: "http://127.0.0.1:8080")!)!
        XCTAssertEqual(defaultTenant.sessionConfiguration(base).httpAdditionalHeaders as? [String: String], ["User-Agent": "FeedApp/1.0"])
    }
}

#if os(Linux)
/// Tester finding tester44c-F3: on Linux `registerURLProtocol()` reached no session
/// (swift-corelibs-foundation's HTTP protocol, first in every configuration, takes every
/// request), while the README described the protocol at work there. The call now says so on
/// standard error, naming what to use instead.
final class RegisterURLProtocolOnLinuxTests: XCTestCase {
    func testRegisteringSaysThatItReachesNoSession() throws {
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: URL(string: "http://127.0.0.1:9")!, parallelId: "linux"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        let capture = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(capture, 0)
        let saved = dup(2)
        dup2(capture, 2)
        configuration.registerURLProtocol()
        dup2(saved, 2)
        close(saved)
        close(capture)
        CatbirdAppConfiguration.unregisterURLProtocol()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let written = try String(contentsOfFile: file, encoding: .utf8)
        let line = "CatbirdAppSupport: registerURLProtocol() reaches no URLSession on Linux"
        XCTAssertEqual(written.components(separatedBy: line).count - 1, 1, "said: \(written)")
        XCTAssertTrue(written.contains("installURLProtocol(in: .default)"), written)
    }
}
#endif
