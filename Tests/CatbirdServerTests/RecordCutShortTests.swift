@testable import CatbirdDomain
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A recording cut short by `kill -9` between its renames is finished at the next start from
/// its intent (docs/files.md#recording, ``RecordingIntent``). Tester finding tester20a-F1: the
/// sweep deleted the new sidecar and the old body's backup (a new body replayed under the old
/// recording's headers, a recorded 500 as a 200), and the parked body of a collection's move
/// into its `index`, the only copy.
///
/// Each test builds the files the tester's killed recording left, named with the id of a
/// process that ran and is gone, as the recorder numbers them (body 1, sidecar 2, kept 3,
/// intent 4; a move: parked 1, intent 2), then replays.
final class RecordCutShortTests: RecordingTestCase {
    /// The id of a process that ran and was reaped.
    private var goneProcess: Int32!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        goneProcess = process.processIdentifier
        try FileManager.default.createDirectory(at: mocksDirectory.appendingPathComponent("var"), withIntermediateDirectories: true)
    }

    /// `var/<name>`'s absolute path.
    private func path(_ name: String) -> String {
        mocksDirectory.appendingPathComponent("var/" + name).path
    }

    /// The name of the gone process's temporary file `ticket` (an intent's with `intent`).
    private func temporary(_ ticket: Int, intent: Bool = false) -> String {
        ".catbird-recording-\(goneProcess!)-\(ticket)\(intent ? ".intent" : "").tmp"
    }

    private func write(_ text: String, _ name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
    }

    private func sidecar(status: Int, _ headers: [(String, String)]) -> String {
        String(decoding: FileMockSidecar(status: status, headers: headers.map { (name: $0.0, value: $0.1) }, recordedMethod: "GET").json, as: UTF8.self)
    }

    private func staged(_ ticket: Int) throws -> RecordingIntent.Staged {
        .init(name: temporary(ticket), inode: try XCTUnwrap(RecordingIntent.inode(path(temporary(ticket)))))
    }

    /// What a recording of `var/<target>` killed right after its body's rename leaves:
    /// `newBody` in place, `newSidecar` under its temporary name, the old body (when `old`)
    /// kept by a hard link, and the intent naming them.
    private func killedBetweenTheRenames(target: String, newBody: String, newSidecar: String, old: Bool) throws {
        try write(newBody, temporary(1))
        try write(newSidecar, temporary(2))
        if old { XCTAssertEqual(link(path(target), path(temporary(3))), 0) }
        let intent = RecordingIntent.pair(target: target, body: try staged(1), sidecar: try staged(2), kept: temporary(3))
        try intent.json.write(to: URL(fileURLWithPath: path(temporary(4, intent: true))))
        XCTAssertEqual(rename(path(temporary(1)), path(target)), 0)
    }

    private func temporaryFilesLeft() -> [String] {
        let all = FileManager.default.enumerator(atPath: mocksDirectory.path)?.allObjects as? [String] ?? []
        return all.filter { $0.contains(".catbird-recording-") }
    }

    /// Repro A, the tester's `/var/k`: recorded before (X-Id 7f2f2c58…, X-Len 34848), killed
    /// between the renames of the next recording (body c5d9c2b6…, 60352 bytes). It replayed the
    /// new body under the old headers; now the new recording is finished, body and headers of
    /// one answer, and the start-up log says so.
    func testARecordingKilledBetweenItsRenamesReplaysItsOwnHeaders() throws {
        let oldID = "7f2f2c58dcd7476bab7d22df514d7467"
        let newID = "c5d9c2b6a1f04e0d9b7e3c2a1d0f9e8b"
        try write(String(repeating: oldID, count: 1089), "k")
        try write(sidecar(status: 200, [("X-Id", oldID), ("X-Len", "34848")]), "k.catbird-response.json")
        let newBody = String(repeating: newID, count: 1886)
        try killedBetweenTheRenames(target: "k", newBody: newBody, newSidecar: sidecar(status: 200, [("X-Id", newID), ("X-Len", "60352")]), old: true)

        let replay = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--mocks-dir", mocksDirectory.path], in: mocksDirectory)
        let answer = try replay.client().request("GET", "/var/k")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("X-Id"), newID, "the headers recorded with this body")
        XCTAssertEqual(answer.header("X-Len"), "60352")
        XCTAssertEqual(answer.text, newBody)
        XCTAssertEqual(temporaryFilesLeft(), [])
        let log = try replay.terminate().stderr
        let file = mocksDirectory.resolvingSymlinksInPath().path + "/var/k"
        XCTAssertTrue(
            log.contains(
                "recovered '\(file)': its recording by process \(goneProcess!) was cut short between its renames (e.g. by kill -9); "
                    + "finished it: the body was in place, its sidecar is put beside it (docs/files.md#recording)"), log)
    }

    /// Repro B, the tester's first recording of `/status/500` (body `status 500`,
    /// `Content-Type: text/plain`), killed between the renames: it replayed as a 200 with no
    /// `Content-Type`. Now it replays as recorded.
    func testAFirstRecordingKilledBetweenItsRenamesKeepsItsStatus() throws {
        try killedBetweenTheRenames(
            target: "500", newBody: "status 500", newSidecar: sidecar(status: 500, [("Content-Type", "text/plain")]), old: false)
        let replay = try server(recording: false)
        let answer = try replay.client().request("GET", "/var/500")
        XCTAssertEqual(answer.status, 500)
        XCTAssertEqual(answer.header("Content-Type"), "text/plain")
        XCTAssertEqual(answer.text, "status 500")
        XCTAssertEqual(temporaryFilesLeft(), [])
    }

    /// When the new sidecar's temporary file is gone (nothing to finish with), the recording is
    /// undone: the old body, kept by its hard link, goes back beside its own sidecar.
    func testARecordingWhoseNewSidecarIsGoneIsUndone() throws {
        try write("old body", "u")
        try write(sidecar(status: 201, [("X-Old", "yes")]), "u.catbird-response.json")
        try killedBetweenTheRenames(target: "u", newBody: "new body", newSidecar: sidecar(status: 200, []), old: true)
        XCTAssertEqual(unlink(path(temporary(2))), 0)
        let replay = try server(recording: false)
        let answer = try replay.client().request("GET", "/var/u")
        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(answer.header("X-Old"), "yes")
        XCTAssertEqual(answer.text, "old body")
        XCTAssertEqual(temporaryFilesLeft(), [])
    }

    /// Repro C, the tester's `/var/col`: a recording of `/var/col/1` moving the collection's
    /// file into `var/col/index`, killed after its first rename (the body parked, an empty
    /// directory made). The sweep deleted the parked body, the only copy, and `/var/col`
    /// answered 404. Now the move is finished, and killed after the body's move (its sidecar
    /// not yet moved) as well.
    func testACollectionMoveKilledMidwayIsFinished() throws {
        for (name, bodyMoved) in [("col", false), ("col2", true)] {
            try write("the collection \(name)", name)
            try write(sidecar(status: 200, [("X-Id", name)]), name + ".catbird-response.json")
            XCTAssertEqual(rename(path(name), path(temporary(1))), 0)
            let intent = RecordingIntent.index(
                collection: name, parked: try staged(1), sidecarInode: RecordingIntent.inode(path(name + ".catbird-response.json")))
            try intent.json.write(to: URL(fileURLWithPath: path(temporary(2, intent: true))))
            XCTAssertEqual(mkdir(path(name), 0o755), 0)
            if bodyMoved { XCTAssertEqual(rename(path(temporary(1)), path(name + "/index")), 0) }
            let replay = try server(recording: false)
            let answer = try replay.client().request("GET", "/var/" + name)
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(answer.text, "the collection \(name)")
            XCTAssertEqual(answer.header("X-Id"), name, "its sidecar moved beside it")
            XCTAssertTrue(exists("var/\(name)/index.catbird-response.json"))
            XCTAssertFalse(exists("var/\(name).catbird-response.json"))
            XCTAssertEqual(temporaryFilesLeft(), [])
            replay.stop()
        }
    }

    /// Tester finding tester26a-F5: an intent whose target is under `var/sub`, a symlink to a
    /// folder outside the mocks directory holding the file with the intent's body inode. The
    /// sweep finished the recording there (`victim/v.catbird-response.json` written outside);
    /// the undo would have renamed the kept file over `victim/v`, and a collection's move its
    /// sidecar into `victim`. Now nothing outside changes, the intent and its temporary files
    /// are removed, and a warning says so, for each of the three.
    func testARecoveryWhoseTargetLeadsOutThroughASymlinkChangesNothingOutside() throws {
        let victim = mocksDirectory.deletingLastPathComponent().appendingPathComponent("victim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: victim) }
        try Data("precious\n".utf8).write(to: victim.appendingPathComponent("v"))
        try Data("the outside index\n".utf8).write(to: victim.appendingPathComponent("index"))
        let outsideInode = try XCTUnwrap(RecordingIntent.inode(victim.appendingPathComponent("v").path))
        XCTAssertEqual(symlink(victim.path, path("sub")), 0)
        XCTAssertEqual(symlink(victim.path, path("col")), 0)
        // The tester's state: the body "in place" (the outside file), its sidecar still temporary.
        try write("{\"status\":200}\n", temporary(2))
        let finish = RecordingIntent.pair(
            target: "sub/v", body: .init(name: temporary(1), inode: outsideInode), sidecar: try staged(2), kept: temporary(3))
        try finish.json.write(to: URL(fileURLWithPath: path(temporary(4, intent: true))))
        // The undo: no new sidecar left, an old body kept, which would go back over `victim/v`.
        try FileManager.default.createDirectory(atPath: path("undo"), withIntermediateDirectories: false)
        XCTAssertEqual(symlink(victim.path, path("undo/sub")), 0)
        try write("kept\n", "undo/" + temporary(3))
        let undo = RecordingIntent.pair(
            target: "sub/v", body: .init(name: temporary(1), inode: outsideInode), sidecar: .init(name: temporary(2), inode: 1),
            kept: temporary(3))
        try undo.json.write(to: URL(fileURLWithPath: path("undo/" + temporary(4, intent: true))))
        // A collection's move: the parked body "moved" into `col/index` (outside), its sidecar not yet.
        try write("{\"status\":200}\n", "col.catbird-response.json")
        let outsideIndex = try XCTUnwrap(RecordingIntent.inode(victim.appendingPathComponent("index").path))
        let move = RecordingIntent.index(
            collection: "col", parked: .init(name: temporary(1), inode: outsideIndex),
            sidecarInode: RecordingIntent.inode(path("col.catbird-response.json")))
        try move.json.write(to: URL(fileURLWithPath: path(temporary(2, intent: true))))

        let replay = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--mocks-dir", mocksDirectory.path], in: mocksDirectory)
        let log = try replay.terminate().stderr
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: victim.path).sorted(), ["index", "v"], "nothing written outside")
        XCTAssertEqual(try String(contentsOf: victim.appendingPathComponent("v"), encoding: .utf8), "precious\n")
        XCTAssertEqual(temporaryFilesLeft(), [], "the intents and their temporary files removed")
        XCTAssertTrue(exists("var/col.catbird-response.json"), "the collection's sidecar left where it was")
        let root = mocksDirectory.resolvingSymlinksInPath().path + "/var"
        for (file, holder) in [("/sub/v", "/sub"), ("/undo/sub/v", "/undo/sub"), ("/col", "/col")] {
            XCTAssertTrue(
                log.contains(
                    "did not recover '\(root + file)': its recording by process \(goneProcess!) was cut short between its renames "
                        + "(e.g. by kill -9), and '\(root + holder)' leads out of the mocks directory (a symlink), where nothing is "
                        + "renamed or written; its intent and temporary files are removed (docs/files.md#recording)"), log)
        }
    }
}
