import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// The base of the FeedApp "UI tests": what an XCUITest case with Catbird does, with the
/// FeedApp executable standing in for `XCUIApplication`. Each test gets its own tenant from
/// the library's XCTest helper, `Catbird.TestTenant`: `<TestClass>.<testMethod>@<clone>`,
/// emptied when the test starts and dropped in its tear-down.
///
/// - Shard mode (the parallel run, `Examples/FeedApp/run-parallel-shards.sh`): `FEEDAPP_SHARD_URL`
///   names the one shared server and `FEEDAPP_SHARD` this process, which plays a simulator
///   clone (the tenant's `@<clone>`). (Not the `CATBIRD_*` names the app reads: the app must
///   get the server from its launch arguments.)
/// - Otherwise (plain `swift test`): each test gets its own server on a free port.
class FeedAppUITestCase: XCTestCase {
    private(set) var tenant: Catbird.TestTenant!
    private var localServer: TestServer?

    /// The client, scoped to this test's tenant.
    var catbird: Catbird { tenant.catbird }

    /// This test's tenant (parallel id).
    var shard: String { tenant.parallelId }

    override func setUpWithError() throws {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["FEEDAPP_SHARD_URL"].flatMap(URL.init(string:)) {
            tenant = try Catbird.TestTenant(for: self, url: url, clone: environment["FEEDAPP_SHARD"] ?? "shard-\(UUID().uuidString)")
        } else {
            let server = try TestServer()
            localServer = server
            tenant = try Catbird.TestTenant(for: self, url: URL(string: "http://127.0.0.1:\(server.port)")!, clone: "local")
        }
    }

    override func tearDownWithError() throws {
        // The tenant's own tear-down block, which drops it, has run by now.
        localServer?.removeFiles()
    }

    /// The app launched by ``startApp(_:)``, running while the test goes on (as an
    /// `XCUIApplication` does).
    struct RunningApp {
        let process: Process
        let output: Pipe

        /// Waits for the app to exit and returns the lines it displayed.
        func finish(file: StaticString = #filePath, line: UInt = #line) -> [String] {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "FeedApp exited with \(process.terminationStatus)", file: file, line: line)
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    /// Launches the app with the Catbird launch arguments and `arguments`, without waiting for it.
    func startApp(_ arguments: [String]) throws -> RunningApp {
        let process = Process()
        process.executableURL = try BuiltProducts.executable(named: "FeedApp")
        process.arguments = tenant.launchArguments + arguments
        // Only the launch arguments may tell the app where Catbird is.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CATBIRD_") }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        return RunningApp(process: process, output: output)
    }

    /// Launches the app with the Catbird launch arguments and `arguments`, and returns the lines
    /// it displayed.
    func launchApp(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try startApp(arguments).finish(file: file, line: line)
    }

    /// The journaled requests of this tenant with this method and URL.
    func journaled(_ method: RequestPattern.HTTPMethod, _ url: String) throws -> [CatbirdRequest] {
        try catbird.allRequests(method: method, url: url).filter { $0.url == url }  // the server's url filter is "contains"
    }

    /// A request body parsed as a JSON object.
    func jsonObject(_ data: Data) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: String] ?? [:]
    }
}
