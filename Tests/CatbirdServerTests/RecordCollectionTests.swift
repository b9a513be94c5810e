import CatbirdServer
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// Record mode with a REST collection and its items (`/api/users` and `/api/users/1`, curl's
/// default `Accept: */*`): both are recorded, in either order, and replay (docs/files.md#recording);
/// a recording that cannot be written says so in the journal entry's `problem` and in
/// `catbird_recordings_failed_total`. try5 finding 11: the second one was only logged.
final class RecordCollectionTests: RecordingTestCase {
    private func get(_ server: TestServer, _ path: String) throws -> CurlClient.Response {
        try CurlClient.run(["http://127.0.0.1:\(server.port)\(path)"])
    }

    private func isFile(_ name: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: mocksDirectory.appendingPathComponent(name).path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }

    /// Regression (tester finding tester36a-F6): a collection's recording moved into its
    /// `index` by its item's recording was reported nowhere, while the earlier journal entry
    /// kept naming what had become a directory. The move is now logged at info.
    func testACollectionMovedIntoItsIndexIsLogged() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-moved-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let server = try LaunchedServer(
            [
                "--port", "\(try FreePort.next())", "--db", work.appendingPathComponent("db.sqlite").path, "--log-level", "info",
                "--record", "--redirect-url", upstream.baseURL, "--mocks-dir", mocksDirectory.path,
            ],
            in: work)
        defer { _ = try? server.terminate() }
        let client = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try client.request("GET", "/echo/mv").status, 200)
        XCTAssertEqual(try client.request("GET", "/echo/mv/1").status, 200)
        let root = mocksDirectory.resolvingSymlinksInPath().path
        let exit = try server.terminate()
        XCTAssertTrue(
            exit.stderr.contains(
                "[info] record mode: moved '\(root)/echo/mv' (and its sidecar) to '\(root)/echo/mv/index' to record under it; "
                    + "journal entries that named '\(root)/echo/mv' still do (docs/files.md#recording)"),
            exit.stderr)
    }

    func testACollectionAndItsItemsAreRecordedInEitherOrderAndReplay() throws {
        let recorder = try server(recording: true)
        // Items first, then the collection (its name is a directory by then) ...
        XCTAssertEqual(try get(recorder, "/echo/api/users/1").status, 200)
        XCTAssertEqual(try get(recorder, "/echo/api/users").status, 200)
        // ... and the collection first (its file becomes the directory's index), then an item.
        XCTAssertEqual(try get(recorder, "/echo/p/a").status, 200)
        XCTAssertEqual(try get(recorder, "/echo/p/a/b").status, 200)
        let journal = try E2E.journal(try recorder.client(), tenant: nil)
        XCTAssertEqual(journal.count, 4)
        for entry in journal {
            XCTAssertTrue(E2E.isNull(entry["problem"]), "\(entry)")
            XCTAssertNotNil(entry["filePath"] as? String, "recorded: \(entry)")
        }
        for name in ["echo/api/users/1", "echo/api/users/index", "echo/p/a/index", "echo/p/a/index.catbird-response.json", "echo/p/a/b"] {
            XCTAssertTrue(isFile(name), "\(name) recorded")
        }
        recorder.stop()
        upstream.stop()

        let replay = try server(recording: false)
        for path in ["/echo/api/users/1", "/echo/api/users", "/echo/p/a", "/echo/p/a/b"] {
            let answer = try get(replay, path)
            XCTAssertEqual(answer.status, 200, path)
            XCTAssertEqual(answer.object["path"] as? String, path, "the recording of \(path) answers it")
        }
        XCTAssertEqual(try E2E.journal(try replay.client(), tenant: nil).compactMap { $0["answeredBy"] as? String }, Array(repeating: "file", count: 4))
    }

    /// Tester finding tester20a-F2, the tester's loop: a collection and its item requested at
    /// once with curl (`/var/r<i>` and `/var/r<i>/1`, 20 times). The item's recording made the
    /// name a directory after the collection's had chosen it, and the collection's rename
    /// failed with `Is a directory` (9 of 20 lost). Now the collection records into the
    /// directory's `index` then, and all 40 replay.
    func testACollectionAndItsItemRecordedAtOnceBothRecord() throws {
        let recorder = try server(recording: true)
        let failures = Mutex<[String]>([])
        let port = recorder.port
        for index in 1...20 {
            let pair = DispatchGroup()
            for path in ["/var/r\(index)", "/var/r\(index)/1"] {
                pair.enter()
                Thread {
                    defer { pair.leave() }
                    let status = (try? CurlClient.run(["http://127.0.0.1:\(port)\(path)"]))?.status
                    if status != 200 { failures.withLock { $0.append("\(path): \(status.map(String.init) ?? "no answer")") } }
                }.start()
            }
            pair.wait()
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let journal = try E2E.journal(try recorder.client(), tenant: nil, once: 40)
        let problems = journal.compactMap { $0["problem"] as? String }
        XCTAssertEqual(problems, [], "\(problems.count) not recorded")
        recorder.stop()
        upstream.stop()

        let replay = try server(recording: false)
        for index in 1...20 {
            for path in ["/var/r\(index)", "/var/r\(index)/1"] {
                let answer = try get(replay, path)
                XCTAssertEqual(answer.status, 200, "\(path): \(answer.text)")
                XCTAssertEqual(answer.object["path"] as? String, path, "the recording of \(path) answers it")
            }
        }
    }

    func testARecordingThatCannotBeWrittenIsAProblemInTheJournalAndCounted() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let long = "/echo/long/" + String(repeating: "s", count: 300)
        XCTAssertEqual(try get(recorder, long).status, 200, "the client still gets the upstream's answer")
        XCTAssertEqual(try get(recorder, "/echo/x.json").status, 200)
        XCTAssertEqual(try get(recorder, "/echo/x.json/1").status, 200)
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, 3)
        let byURL = Dictionary(uniqueKeysWithValues: journal.map { ($0["url"] as? String ?? "", $0) })
        let tooLong = byURL[long]?["problem"] as? String ?? ""
        XCTAssertTrue(tooLong.hasPrefix("not recorded: cannot write '"), tooLong)
        XCTAssertTrue(tooLong.hasSuffix("a name segment is 300 bytes long; the file system takes at most 255"), tooLong)
        XCTAssertTrue(E2E.isNull(byURL[long]?["filePath"]))
        XCTAssertTrue(E2E.isNull(byURL["/echo/x.json"]?["problem"]))
        let inTheWay = byURL["/echo/x.json/1"]?["problem"] as? String ?? ""
        XCTAssertTrue(inTheWay.hasSuffix("/echo/x.json': a file is in the way where a directory must be (a name with an extension is not moved to an index)"), inTheWay)
        XCTAssertEqual(byURL["/echo/x.json/1"]?["answeredBy"] as? String, "redirect")
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 2)
    }

    /// Regression (try7b F5): a path of 1,000 segments took 50 s to record (each level was
    /// resolved from the root: a `readlink` per level above it), holding one of the two threads
    /// answering every forwarded request. A path deeper than 128 segments is not recorded now
    /// (the client gets the upstream's answer, the journal says why), and one of 128 is.
    func testAPathOf1000SegmentsIsNotRecordedAndOneOf128Is() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let deep = "/echo/" + String(repeating: "d/", count: 1000) + "end"
        XCTAssertEqual(try get(recorder, deep).status, 200, "the client still gets the upstream's answer")
        // 126 levels under echo/: 128 segments with echo and the file.
        let deepest = "/echo/" + String(repeating: "d/", count: 126) + "end"
        XCTAssertEqual(try get(recorder, deepest).status, 200)
        let journal = try E2E.journal(client, tenant: nil)
        let byURL = Dictionary(uniqueKeysWithValues: journal.map { ($0["url"] as? String ?? "", $0) })
        let problem = byURL[deep]?["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("not recorded: cannot write '"), problem)
        XCTAssertTrue(problem.hasSuffix("the path has 1002 segments; record mode writes at most 128"), problem)
        XCTAssertTrue(E2E.isNull(byURL[deep]?["filePath"]))
        XCTAssertTrue(E2E.isNull(byURL[deepest]?["problem"]), "\(byURL[deepest] ?? [:])")
        XCTAssertTrue(isFile("echo/" + String(repeating: "d/", count: 126) + "end"), "the path of 128 segments recorded")
        let pastTheOther = mocksDirectory.path + "/echo/" + Array(repeating: "d", count: 127).joined(separator: "/")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pastTheOther), "no directory made past the other recording's 126 levels")
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 1)
    }

    /// Tester finding T15B-F17, the exact inputs: `/coll3` recorded, `/coll3/x` moved it to
    /// `coll3/index`, then `/coll3/index` replaced it there without a word (the note of which
    /// target a file holds stayed with the old name). It is reported as without a move.
    func testARecordingOfIndexAfterAMoveSaysItReplacesTheCollection() throws {
        let recorder = try server(recording: true)
        for path in ["/coll3", "/coll3/x", "/coll3/index"] {
            XCTAssertEqual(try get(recorder, path).status, 200, path)
        }
        let journal = try E2E.journal(try recorder.client(), tenant: nil)
        XCTAssertEqual(journal.count, 3)
        let file = mocksDirectory.resolvingSymlinksInPath().appendingPathComponent("coll3/index").path
        XCTAssertEqual(journal.last?["filePath"] as? String, file)
        XCTAssertEqual(
            journal.last?["problem"] as? String,
            "'\(file)' held the answer to /coll3, replaced by this answer to /coll3/index: both request-targets name this file "
                + "(docs/files.md#request-to-file)")
        XCTAssertTrue(journal.dropLast().allSatisfy { E2E.isNull($0["problem"]) }, "\(journal)")
    }

    /// Tester finding T15B-F6, the exact inputs: `col/users`, a relative symlink to
    /// `../fixtures/users.json`, was moved to `col/users/index` by a recording of
    /// `/col/users/1`, where it dangled (and `/col/users` answered 404). A symlink is not moved:
    /// that recording fails with a `problem`, and the fixture keeps answering.
    func testASymlinkFixtureIsNotMovedIntoAnIndex() throws {
        let fixtures = mocksDirectory.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mocksDirectory.appendingPathComponent("col"), withIntermediateDirectories: true)
        try Data(#"{"users":[]}"#.utf8).write(to: fixtures.appendingPathComponent("users.json"))
        try FileManager.default.createSymbolicLink(
            atPath: mocksDirectory.appendingPathComponent("col/users").path, withDestinationPath: "../fixtures/users.json")
        let recorder = try server(recording: true)
        XCTAssertEqual(try get(recorder, "/col/users/1").status, 200, "the client still gets the upstream's answer")
        let journal = try E2E.journal(try recorder.client(), tenant: nil)
        let problem = journal.first?["problem"] as? String ?? ""
        XCTAssertTrue(
            problem.hasSuffix("/col/users': a symlink to a file is in the way where a directory must be (a symlink is not moved to an index: "
                + "its target would change)"), problem)
        recorder.stop()
        upstream.stop()
        let replay = try server(recording: false)
        let answer = try get(replay, "/col/users")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, #"{"users":[]}"#)
    }
}
