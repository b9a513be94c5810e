import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Two Catbirds recording into one directory keep each recording's body and sidecar together:
/// a recording's renames hold an exclusive `flock` on the mocks directory (docs/files.md#recording).
/// Tester finding tester23a-F6: two servers recording the same paths into one directory left
/// `var/two35` with one recording's body (5,216 bytes) under the other's sidecar (`X-Len: 6944`),
/// served so by every replay after; the lock that kept one server's renames together was only
/// in its own process. Here the test process holds the lock as the other Catbird would.
final class RecordDirectoryLockTests: RecordingTestCase {
    /// Takes the mocks directory's lock from a descriptor of this test's own, as another
    /// process recording into it does; closing the descriptor releases it.
    private func holdDirectoryLock() throws -> Int32 {
        let descriptor = open(mocksDirectory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(descriptor, 0, "the recording server made the mocks directory")
        XCTAssertEqual(flock(descriptor, LOCK_EX | LOCK_NB), 0, "no recording holds the lock now")
        return descriptor
    }

    func testARecordingWaitsWhileAnotherProcessHoldsTheDirectorysLock() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let held = try holdDirectoryLock()
        try client.send("GET", "/var/two35")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertFalse(exists("var"), "nothing renamed (not even the directory made) while the other process holds the lock")
        close(held)
        let answer = try client.readResponse()
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("X-Upstream"), "yes")
        XCTAssertTrue(exists("var/two35") && exists("var/two35.catbird-response.json"), "recorded once the lock was released")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/var/two35" })
        XCTAssertTrue(E2E.isNull(entry["problem"]), "\(entry)")
    }

    func testALockHeldPastThePatienceFailsTheRecordingNotTheAnswer() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let held = try holdDirectoryLock()
        let answer = try client.request("GET", "/stuck")
        close(held)
        XCTAssertEqual(answer.status, 200, "the client still gets the upstream's answer")
        XCTAssertEqual(answer.header("X-Upstream"), "yes")
        XCTAssertFalse(exists("stuck") || exists("stuck.catbird-response.json"), "nothing recorded")
        let root = mocksDirectory.resolvingSymlinksInPath().path
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/stuck" })
        XCTAssertEqual(
            entry["problem"] as? String,
            "not recorded: cannot write '\(root)': another process held the mocks directory's lock (flock) for 2 s: "
                + "a recording's renames take milliseconds, so a process (another Catbird recording here?) is stuck holding it")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: mocksDirectory.path)
        XCTAssertEqual(leftovers, [], "its temporary files removed")

        XCTAssertEqual(try client.request("GET", "/stuck").status, 200)
        XCTAssertTrue(exists("stuck") && exists("stuck.catbird-response.json"), "recorded once the lock is free")
    }
}
