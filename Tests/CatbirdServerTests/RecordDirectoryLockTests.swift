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

    /// Regression (tester finding tester40a-F5): while another process held the lock, queued
    /// recordings waited their 2 s one after another (2, 4, … 16 s), and every answer behind them,
    /// another tenant's too, waited as long. The first waits its 2 s; the ones queued behind it
    /// then try once and fail at once, so six answers all arrive within about 2 s; once the lock
    /// is free the next recording is written again.
    func testRecordingsQueuedBehindAStuckLockFailAtOnceAfterTheFirst() throws {
        let recorder = try server(recording: true)
        let held = try holdDirectoryLock()
        let started = ContinuousClock.now
        let clients = try (0..<6).map { index in
            let client = try recorder.client()
            try client.send("GET", "/queued/\(index)", headers: [("X-Catbird-Parallel-Id", index == 5 ? "M" : "S")])
            return client
        }
        for client in clients { XCTAssertEqual(try client.readResponse().status, 200) }
        let took = ContinuousClock.now - started
        close(held)
        XCTAssertLessThan(took, .seconds(5), "six answers behind a stuck lock took \(took) (before: 2 s each, in turn)")
        let problems = try ["S", "M"].flatMap { tenant in
            try E2E.journal(try recorder.client(), tenant: tenant).compactMap { $0["problem"] as? String }
        }
        XCTAssertEqual(problems.count, 6, "\(problems)")
        XCTAssertTrue(problems.allSatisfy { $0.contains("another process held the mocks directory's lock (flock) for 2 s") }, "\(problems)")
        XCTAssertEqual(problems.filter { $0.contains("at an earlier recording's try and still holds it") }.count, 5, "\(problems)")

        XCTAssertEqual(try recorder.client().request("GET", "/queued/after").status, 200)
        XCTAssertTrue(exists("queued/after") && exists("queued/after.catbird-response.json"), "recorded once the lock is free")
    }
}
