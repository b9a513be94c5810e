import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// deploy/xcode/start.sh starts every run clean: mocks left by an earlier run (even one that
/// crashed before its post-action) do not answer the next run, while the earlier journal stays
/// queryable; the server is built without the scheme's environment; `--host 0.0.0.0` warns.
extension DeployScriptsTests {
    /// Mocks left by an earlier run: kept with `--keep-mocks` (the server is reused), removed
    /// by the next plain start whether the earlier server crashed (no post-action ran) or is
    /// still running and reused; the earlier journal stays queryable.
    func testMocksLeftByAnEarlierRunDoNotAnswerTheNextRun() throws {
        let port = try ChildProcesses.freePort()
        let database = directory.appendingPathComponent("runs.sqlite").path
        XCTAssertEqual(try script("start.sh", ["--port", "\(port)", "--db", database]).status, 0)
        var client = try RawHTTPClient(port: port)
        try E2E.addMock(client, tenant: nil, url: "/api/feed", body: "run 1 default")
        try E2E.addMock(client, tenant: "shard-1", url: "/api/feed", body: "run 1 shard")
        XCTAssertEqual(try client.request("GET", "/api/feed").text, "run 1 default")

        let kept = try script("start.sh", ["--port", "\(port)", "--db", database, "--keep-mocks"])
        XCTAssertEqual(kept.status, 0, kept.output)
        XCTAssertTrue(kept.stdout.contains("reusing it"), kept.output)
        XCTAssertEqual(try client.request("GET", "/api/feed", headers: E2E.tenantHeader("shard-1")).text, "run 1 shard")

        // Let the journal writer commit the two requests, then crash: no post-action runs.
        _ = try E2E.journal(client, tenant: "shard-1")
        let pid = try XCTUnwrap(recordedPid(port: port))
        kill(pid, SIGKILL)
        while ChildProcesses.isAlive(pid) { usleep(10_000) }

        let next = try script("start.sh", ["--port", "\(port)", "--db", database])
        XCTAssertEqual(next.status, 0, next.output)
        XCTAssertTrue(next.stdout.contains("removed 2 mock(s) left by earlier runs"), next.output)
        // The crashed server's pid file was stale: replaced by the new server's pid.
        XCTAssertTrue(next.stdout.contains("removing stale \(pidFile(port).path) (pid \(pid) is gone)"), next.output)
        let newPid = try XCTUnwrap(recordedPid(port: port))
        XCTAssertNotEqual(newPid, pid)
        XCTAssertTrue(ChildProcesses.isAlive(newPid), "the pid file names the running server")
        client = try RawHTTPClient(port: port)
        XCTAssertEqual(try client.request("GET", "/api/feed").status, 404, "the default tenant's leftover mock is gone")
        XCTAssertEqual(
            try client.request("GET", "/api/feed", headers: E2E.tenantHeader("shard-1")).status, 404, "and the shard's")
        let earlier = try E2E.sqlRows(client, "SELECT COUNT(*) FROM requests WHERE url = '/api/feed' AND status = 200")
        XCTAssertEqual(earlier.first.map { $0.map { JSONNumber.int($0) } }, [1], "the earlier run's journal is still there")

        // The post-action never ran: the next run reuses the server and still starts clean.
        try E2E.addMock(client, tenant: "shard-2", url: "/kept", body: "kept")
        let reused = try script("start.sh", ["--port", "\(port)", "--db", database])
        XCTAssertEqual(reused.status, 0, reused.output)
        XCTAssertTrue(reused.stdout.contains("removed 1 mock(s) left by earlier runs"), reused.output)
        XCTAssertEqual(try client.request("GET", "/kept", headers: E2E.tenantHeader("shard-2")).status, 404)
        XCTAssertEqual(try script("stop.sh", ["--port", "\(port)"]).status, 0)
    }

    func testTheServerIsBuiltWithoutTheSchemesEnvironment() throws {
        // A stand-in for swift: records the environment it was given, and "builds" catbird by
        // linking the real one into the folder it reports as the bin path.
        let built = directory.appendingPathComponent("bin")
        let environmentFile = directory.appendingPathComponent("swift-environment")
        let real = try BuiltProducts.executable(named: "catbird")
        let swift = try makeScript("fake-swift", """
            #!/bin/bash
            case "$*" in
                *--show-bin-path*) echo '\(built.path)' ;;
                *) env > '\(environmentFile.path)'; mkdir -p '\(built.path)'; ln -sf '\(real.path)' '\(built.path)/catbird' ;;
            esac
            """)
        let port = try ChildProcesses.freePort()
        let scheme = [
            "CATBIRD_BINARY": "", "CATBIRD_SWIFT": swift.path,
            "SDKROOT": "/Applications/Xcode.app/Contents/Developer/Platforms/iPhoneSimulator.platform/Developer/SDKs/iPhoneSimulator.sdk",
            "PLATFORM_NAME": "iphonesimulator", "IPHONEOS_DEPLOYMENT_TARGET": "15.0", "ARCHS": "arm64",
            "CC": "/nonexistent/clang", "CFLAGS": "-isysroot /nonexistent", "PATH": "/nonexistent/usr/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
        ]
        let started = try script("start.sh", ["--port", "\(port)"], environment: scheme)
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertTrue(started.stdout.contains("Catbird is serving on http://127.0.0.1:\(port)"), started.output)

        let seen = try String(contentsOf: environmentFile, encoding: .utf8).split(separator: "\n").map(String.init)
        for name in ["SDKROOT", "PLATFORM_NAME", "IPHONEOS_DEPLOYMENT_TARGET", "ARCHS", "CC", "CFLAGS", "CATBIRD_SWIFT"] {
            XCTAssertFalse(seen.contains { $0.hasPrefix("\(name)=") }, "\(name) reached the build: \(seen)")
        }
        let path = seen.first { $0.hasPrefix("PATH=") } ?? ""
        XCTAssertFalse(path.contains("/nonexistent"), path)
        XCTAssertTrue(path.hasPrefix("PATH=/usr/bin:/bin:"), path)
        XCTAssertTrue(seen.contains { $0.hasPrefix("HOME=") }, "\(seen)")
        XCTAssertEqual(try script("stop.sh", ["--port", "\(port)"]).status, 0)
    }

    func testAFailedBuildFailsLoudly() throws {
        let swift = try makeScript("broken-swift", """
            #!/bin/bash
            echo "error: no such module 'CMicroHTTPD'" >&2
            exit 1
            """)
        let port = try ChildProcesses.freePort()
        // A stale pid file from a crashed earlier run: a failed build runs before any server is
        // started, so without it "no pid file left" would hold whatever start.sh did. It must be
        // cleared, and nothing written in its place.
        try "2147483000\n".write(to: pidFile(port), atomically: true, encoding: .utf8)
        let result = try script("start.sh", ["--port", "\(port)"], environment: ["CATBIRD_BINARY": "", "CATBIRD_SWIFT": swift.path])
        assertFailedStart(result, port: port, saying: ["no such module 'CMicroHTTPD'", "error: start.sh: building catbird failed"])
        XCTAssertTrue(result.stdout.contains("removing stale \(pidFile(port).path)"), result.output)
        XCTAssertThrowsError(try RawHTTPClient(port: port).request("GET", "/catbird/api/health"), "nothing serves the port")
    }

    func testAllAddressesAreServedWithAWarning() throws {
        let port = try ChildProcesses.freePort()
        let started = try script("start.sh", ["--port", "\(port)", "--host", "0.0.0.0"])
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertTrue(started.stderr.contains("warning: --host 0.0.0.0 exposes Catbird beyond this machine"), started.output)
        XCTAssertTrue(started.stdout.contains("Catbird is serving on http://0.0.0.0:\(port)"), started.output)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(try script("stop.sh", ["--port", "\(port)"]).status, 0)

        let quiet = try script("start.sh", ["--port", "\(port)"])
        XCTAssertFalse(quiet.stderr.contains("warning"), "loopback needs no warning: \(quiet.output)")
        XCTAssertEqual(try script("stop.sh", ["--port", "\(port)"]).status, 0)
    }
}
