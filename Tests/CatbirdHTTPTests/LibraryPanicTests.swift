@testable import CatbirdHTTP
import CMicroHTTPD
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A libmicrohttpd panic is logged through our logger, with libmicrohttpd's file, line and
/// reason, before the process aborts (``LibraryPanic``): a SIGABRT of the server then names
/// its cause. A panic ends the process, so it happens in a child: this test binary run again
/// for ``testPanicInAChild()`` alone.
final class LibraryPanicTests: XCTestCase {
    private static let childVariable = "CATBIRD_TEST_LIBRARY_PANIC_CHILD"

    /// Regression: libmicrohttpd's default handler printed an unstamped line to stderr (or
    /// nothing, where stderr was not kept) and the server died of signal 6 unexplained.
    func testAPanicIsLoggedWithFileLineAndReasonBeforeTheAbort() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["CatbirdHTTPTests.LibraryPanicTests/testPanicInAChild"]
        // No Swift crash report for the expected abort (it would take seconds to symbolicate).
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: "1", "SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-panic-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        child.standardError = try FileHandle(forWritingTo: errors)
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while child.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""

        XCTAssertEqual(child.terminationReason, .uncaughtSignal, log)
        XCTAssertEqual(child.terminationStatus, SIGABRT, log)
        let line = #"\[error\] libmicrohttpd panic at \S*daemon\.c:[0-9]+: Cannot suspend connections without enabling MHD_ALLOW_SUSPEND_RESUME!; aborting \(SIGABRT\)"#
        XCTAssertNotNil(log.range(of: line, options: .regularExpression), log)
    }

    /// The child: starts an ``HTTPServer`` (which installs the handler, as the server does),
    /// then makes libmicrohttpd panic: a daemon started without `MHD_ALLOW_SUSPEND_RESUME`
    /// whose access handler suspends its connection. Skipped unless run by the test above.
    func testPanicInAChild() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment[Self.childVariable] == "1", "runs only as the child of testAPanicIsLoggedWithFileLineAndReasonBeforeTheAbort")
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: DeferredHandler())
        try server.start()
        let suspending: MHD_AccessHandlerCallback = { _, connection, _, _, _, _, _, _ in
            MHD_suspend_connection(connection)
            return .YES
        }
        let daemon = try XCTUnwrap(catbird_mhd_start_worker(
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue, 10, 32 * 1024, 8, suspending, nil, nil, nil, nil, nil, nil))
        var sockets: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let added = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                MHD_add_connection(daemon, sockets[0], $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(added, .YES)
        let request = Array("GET /panic HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        XCTAssertEqual(write(sockets[1], request, request.count), request.count)
        sleep(30)
        XCTFail("libmicrohttpd did not panic")
    }
}
