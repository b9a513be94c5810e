import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Record mode against a real upstream, then replay from the files with the upstream stopped:
/// same status, the headers that matter, the same bytes.
final class RecordReplayTests: XCTestCase {
    private var upstream: Upstream!
    private var mocksDirectory: URL!

    override func setUpWithError() throws {
        upstream = try Upstream()
        mocksDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-record-\(UUID().uuidString)")
    }

    override func tearDown() {
        upstream?.stop()
        if let mocksDirectory { try? FileManager.default.removeItem(at: mocksDirectory) }
    }

    private func recording(proxy: Bool = false, query: Bool = false) throws -> TestServer {
        try TestServer { settings in
            if proxy { settings.proxyEnabled = true } else { settings.redirectURL = self.upstream.baseURL }
            settings.recordMode = true
            settings.mocksDirectory = self.mocksDirectory.path
            settings.filesIncludeQuery = query
        }
    }

    private func replaying(query: Bool = false) throws -> TestServer {
        try TestServer { settings in
            settings.mocksDirectory = self.mocksDirectory.path
            settings.filesIncludeQuery = query
        }
    }

    private func contents(_ name: String) -> String? {
        FileManager.default.contents(atPath: mocksDirectory.appendingPathComponent(name).path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The requests of a short session: curl arguments after the URL's base.
    private let session: [(path: String, arguments: [String])] = [
        ("/echo/users", ["-H", "Accept: application/json"]),
        ("/status/201", ["-X", "POST", "--data-binary", "name=x"]),
        ("/binary", []),
        ("/gzip", ["-H", "Accept: application/json", "-H", "Accept-Encoding: gzip"]),
        ("/cookies", []),
        ("/redirect", []),
        ("/status/404", []),
    ]

    func testRecordThroughRedirectThenReplayWithTheUpstreamStopped() throws {
        let recorder = try recording()
        var recorded: [CurlClient.Response] = []
        for step in session {
            recorded.append(try CurlClient.run(step.arguments + ["http://127.0.0.1:\(recorder.port)\(step.path)"]))
        }
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(recorder.port)/catbird/api/mocks"]).status, 200)
        XCTAssertEqual(recorded[3].header("Content-Encoding"), "gzip", "bodies are forwarded and recorded as sent")
        XCTAssertEqual(Array(recorded[3].body.prefix(2)), [0x1F, 0x8B])
        let journal = try E2E.journal(try recorder.client(), tenant: nil)
        XCTAssertEqual(journal.map { $0["answeredBy"] as? String }, Array(repeating: "redirect", count: session.count))
        XCTAssertTrue((journal.first?["filePath"] as? String)?.hasSuffix("/echo/users.json") == true, "\(journal.first ?? [:])")
        recorder.stop()
        upstream.stop()

        XCTAssertNil(contents("catbird/api/mocks"), "control routes are never recorded")
        XCTAssertNotNil(contents("echo/users.json"), "Accept picked the extension")
        XCTAssertTrue(contents("gzip.json.catbird-response.json")?.contains(#""Content-Encoding" : "gzip""#) == true)
        let replayer = try replaying()
        for (step, original) in zip(session, recorded) {
            let replayed = try CurlClient.run(step.arguments + ["http://127.0.0.1:\(replayer.port)\(step.path)"])
            XCTAssertEqual(replayed.status, original.status, step.path)
            XCTAssertEqual(replayed.body, original.body, step.path)
            for name in ["Content-Type", "Content-Encoding", "Location", "X-Upstream"] {
                XCTAssertEqual(replayed.header(name), original.header(name), "\(step.path) \(name)")
            }
            XCTAssertEqual(replayed.headers("Set-Cookie"), original.headers("Set-Cookie"), step.path)
        }
        let entry = try XCTUnwrap(try E2E.journal(try replayer.client(), tenant: nil).first)
        XCTAssertEqual(entry["answeredBy"] as? String, "file")
    }

    /// The exact report: recording through Python's file server (the README's backend), a `POST`
    /// to the recorded `GET` path (the file server answers 501) replaced `api/books.json` and its
    /// sidecar with the 501, so the replayed `GET` answered the 501's HTML. A `GET` recording is
    /// replaced only by a `GET` (docs/files.md#recording); a `POST` where no `GET` was recorded is
    /// still recorded, and a later `GET` replaces it.
    func testAnotherMethodNeverReplacesAGETRecording() throws {
        let backend = mocksDirectory.appendingPathExtension("backend")
        try FileManager.default.createDirectory(at: backend.appendingPathComponent("api"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: backend) }
        try Data(#"{"books":["Dune"]}\#n"#.utf8).write(to: backend.appendingPathComponent("api/books.json"))
        let fileServer = try Upstream(directory: backend.path)
        defer { fileServer.stop() }
        let base = fileServer.baseURL
        let recorder = try TestServer { settings in
            settings.redirectURL = base
            settings.recordMode = true
            settings.mocksDirectory = self.mocksDirectory.path
        }
        let catbird = "http://127.0.0.1:\(recorder.port)"
        XCTAssertEqual(try CurlClient.run(["\(catbird)/api/books.json"]).text, #"{"books":["Dune"]}\#n"#)
        let post = try CurlClient.run(["-X", "POST", "\(catbird)/api/books.json", "-d", "x"])
        XCTAssertEqual(post.status, 501, "the client still gets the upstream's answer")
        XCTAssertEqual(contents("api/books.json"), #"{"books":["Dune"]}\#n"#, "the GET's recording is kept")
        let sidecar = try XCTUnwrap(contents("api/books.json.catbird-response.json"))
        XCTAssertTrue(sidecar.contains(#""status" : 200"#), sidecar)
        XCTAssertTrue(sidecar.contains(#""recordedMethod" : "GET""#), sidecar)
        XCTAssertEqual(try CurlClient.run(["-X", "PUT", "\(catbird)/api/books.json", "-d", "x"]).status, 501)
        XCTAssertEqual(contents("api/books.json"), #"{"books":["Dune"]}\#n"#, "nor by a PUT")

        // No GET recording: a POST is recorded, and a later GET replaces it.
        XCTAssertEqual(try CurlClient.run(["-X", "POST", "\(catbird)/api/orders", "-d", "x"]).status, 501)
        XCTAssertTrue(contents("api/orders.catbird-response.json")?.contains(#""recordedMethod" : "POST""#) == true)
        XCTAssertEqual(try CurlClient.run(["-X", "POST", "\(catbird)/api/orders", "-d", "y"]).status, 501)
        try Data("[1]".utf8).write(to: backend.appendingPathComponent("api/orders"))
        XCTAssertEqual(try CurlClient.run(["\(catbird)/api/orders"]).text, "[1]")
        XCTAssertEqual(contents("api/orders"), "[1]")
        recorder.stop()
        fileServer.stop()

        let replayer = try replaying()
        let replayed = try CurlClient.run(["http://127.0.0.1:\(replayer.port)/api/books.json"])
        XCTAssertEqual(replayed.status, 200)
        XCTAssertEqual(replayed.text, #"{"books":["Dune"]}\#n"#)
    }

    func testRecordThroughProxyFilesGoUnderTheHost() throws {
        let recorder = try recording(proxy: true)
        let proxy = "http://127.0.0.1:\(recorder.port)"
        let original = try CurlClient.run(["--proxy", proxy, "\(upstream.baseURL)/binary"])
        XCTAssertEqual(original.body, Array(0...255))
        recorder.stop()
        upstream.stop()
        XCTAssertNotNil(contents("127.0.0.1/binary"))
        let replayer = try replaying()
        let replayed = try CurlClient.run(["--proxy", "http://127.0.0.1:\(replayer.port)", "\(upstream.baseURL)/binary"])
        XCTAssertEqual(replayed.status, 200)
        XCTAssertEqual(replayed.body, Array(0...255))
        XCTAssertEqual(replayed.header("Content-Type"), "application/octet-stream")
    }

    func testRecordingReplacesOldFilesInsteadOfServingThem() throws {
        try FileManager.default.createDirectory(at: mocksDirectory.appendingPathComponent("status"), withIntermediateDirectories: true)
        try Data(String(repeating: "stale ", count: 100).utf8).write(to: mocksDirectory.appendingPathComponent("status/404"))
        let recorder = try recording()
        let answer = try CurlClient.run(["http://127.0.0.1:\(recorder.port)/status/404"])
        XCTAssertEqual(answer.text, "status 404", "files are not served while recording")
        XCTAssertEqual(contents("status/404"), "status 404", "no tail of the longer old body")
        XCTAssertTrue(contents("status/404.catbird-response.json")?.contains("404") == true)
        XCTAssertEqual(try recorder.client().request("HEAD", "/status/404").status, 404)
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(recorder.port)/status/304"]).status, 304)
        XCTAssertEqual(contents("status/404"), "status 404", "a HEAD does not replace the recording")
        XCTAssertNil(contents("status/304"), "a 304 is not recorded")
    }

    /// Regression (tester20a-F11.12): answers record mode skips by rule were journaled with no
    /// `problem`: a player that always sends `Range` recorded nothing and nothing said why. Each
    /// now says it, and none counts as a failed recording. Regression (tester finding
    /// tester29d-F1): a 304 (or 206) the backend sent to a request without the fields that ask
    /// for one advised to drop them; it now says the backend sent it on its own.
    func testAnswersSkippedByRuleSayWhyTheyWereNotRecorded() throws {
        let recorder = try recording()
        let client = try recorder.client()
        XCTAssertEqual(try CurlClient.run(["-H", "Range: bytes=0-1", "http://127.0.0.1:\(recorder.port)/status/206"]).status, 206)
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(recorder.port)/status/304"]).status, 304)
        XCTAssertEqual(try CurlClient.run(["-H", "If-None-Match: \"x\"", "http://127.0.0.1:\(recorder.port)/status/304"]).status, 304)
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(recorder.port)/status/206"]).status, 206)
        XCTAssertEqual(try client.request("HEAD", "/status/200").status, 200)
        let problems = try E2E.journal(client, tenant: nil).map { entry in
            "\(entry["method"] as? String ?? "") \(entry["url"] as? String ?? ""): \(entry["problem"] as? String ?? "none")"
        }
        XCTAssertEqual(problems, [
            "GET /status/206: not recorded: a 206 answers the client's byte range, not the resource; send the request without Range to record it (docs/files.md#recording)",
            "GET /status/304: not recorded: a 304 answers a cache, not the resource, and the backend sent it to a request without If-None-Match or If-Modified-Since (it answers 304 on its own) (docs/files.md#recording)",
            "GET /status/304: not recorded: a 304 answers the client's cache, not the resource; send the request without If-None-Match or If-Modified-Since to record it (docs/files.md#recording)",
            "GET /status/206: not recorded: a 206 answers a byte range, not the resource, and the backend sent it to a request without Range (it answers 206 on its own) (docs/files.md#recording)",
            "HEAD /status/200: not recorded: a HEAD's answer has no body; it would empty the GET's recording (docs/files.md#recording)",
        ])
        XCTAssertNil(contents("status/206"))
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 0)
    }

    /// Tester finding tester44a-F5: a 416 to `Range: bytes=100-` of a 100-byte clip was recorded
    /// over the clip's 200 recording, and replay answered every request 416; a 412 to a request
    /// with `If-Match` replaced the 200 the same way. Neither is recorded now, each saying why; a
    /// 412 the backend sends to a request without a precondition is its own answer, recorded.
    func testA416ToARangeAndA412ToAPreconditionAreNotRecorded() throws {
        let recorder = try recording()
        let client = try recorder.client()
        let base = "http://127.0.0.1:\(recorder.port)"
        XCTAssertEqual(try CurlClient.run(["-H", "Range: bytes=100-", "\(base)/status/416"]).status, 416)
        XCTAssertEqual(try CurlClient.run(["-H", "If-Match: \"old\"", "\(base)/status/412"]).status, 412)
        let problems = try E2E.journal(client, tenant: nil).map { "\($0["url"] as? String ?? ""): \($0["problem"] as? String ?? "none")" }
        XCTAssertEqual(problems, [
            "/status/416: not recorded: a 416 answers the client's byte range (no byte of it is in the resource), not the resource; "
                + "send the request without Range to record it (replay answers such a range with 416 itself, docs/files.md#byte-ranges) (docs/files.md#recording)",
            "/status/412: not recorded: a 412 answers the client's precondition (If-Match, If-Unmodified-Since, …), not the resource; "
                + "send the request without them to record it (docs/files.md#recording)",
        ])
        XCTAssertNil(contents("status/416"))
        XCTAssertNil(contents("status/412"))
        XCTAssertEqual(try CurlClient.run(["\(base)/status/412"]).status, 412)
        XCTAssertEqual(contents("status/412"), "status 412", "the backend's own 412, recorded")
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 0)
    }

    /// Tester finding tester44a-F2, its steps with the README's backend (`python3 -m
    /// http.server`): recording `/api/` (the listing) then `/api` (the server's `301 Location:
    /// /api/`) filed the 301 in `api/index`, over the listing, and the replay of `/api/`
    /// redirected to itself for ever. The 301 is not recorded now, its entry saying why; the
    /// replay of `/api/` is the listing.
    func testABackendsSlashRedirectIsNotRecordedOverTheDirectorysIndex() throws {
        let backend = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-backend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: backend.appendingPathComponent("api"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: backend) }
        try Data(#"{"books":["Dune"]}"#.utf8).write(to: backend.appendingPathComponent("api/books.json"))
        let files = try Upstream(directory: backend.path)
        defer { files.stop() }
        let recorder = try TestServer { settings in
            settings.redirectURL = files.baseURL
            settings.recordMode = true
            settings.mocksDirectory = self.mocksDirectory.path
        }
        let client = try recorder.client()
        let listing = try client.request("GET", "/api/")
        XCTAssertEqual(listing.status, 200)
        XCTAssertTrue(listing.text.contains("books.json"), listing.text)
        let redirect = try client.request("GET", "/api")
        XCTAssertEqual(redirect.status, 301)
        XCTAssertEqual(redirect.header("Location"), "/api/")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).last)
        XCTAssertEqual(
            entry["problem"] as? String,
            "not recorded: a 301 from /api to /api/ is a redirect to the other spelling of the same file mock (once /api is a "
                + "directory, both name its index): replayed, it would redirect to itself (docs/files.md#recording)")
        recorder.stop()
        let replayer = try replaying()
        let replayed = try replayer.client().request("GET", "/api/")
        XCTAssertEqual(replayed.status, 200, "the listing, not a redirect to itself")
        XCTAssertEqual(replayed.text, listing.text)
    }

    /// Tester finding tester45a-F4, F5, F8, its redirects: `/dirB` → `/dirB/` recorded before
    /// anything under `dirB/` (then moved into `dirB/index` by `/dirB/x`'s recording); an
    /// absolute `Location` (nginx's `absolute_redirect`), a relative one (`dirK/`), and the
    /// reverse `/rdirB/` → `/rdirB`: each was recorded and replayed as a redirect to itself. None
    /// is recorded now; a redirect elsewhere still is.
    func testNoSlashRedirectIsRecordedWhateverItsOrderOrForm() throws {
        let recorder = try recording()
        let base = "http://127.0.0.1:\(recorder.port)"
        let cases: [(path: String, location: String)] = [
            ("/moved/dirB", "/moved/dirB/"), ("/moved/dirD", "\(upstream.baseURL)/moved/dirD/"), ("/moved/dirK", "dirK/"),
            ("/moved/rdirB/", "/moved/rdirB"), ("/moved/q?a=1", "/moved/q/?a=1"),
        ]
        for (path, location) in cases {
            let answer = try CurlClient.run(["-H", "X-Location: \(location)", base + path])
            XCTAssertEqual(answer.status, 301, path)
        }
        XCTAssertEqual(try CurlClient.run([base + "/moved/dirB/x"]).status, 200)
        let problems = try E2E.journal(try recorder.client(), tenant: nil).prefix(cases.count).map { $0["problem"] as? String ?? "none" }
        for (problem, (path, _)) in zip(problems, cases) {
            XCTAssertTrue(problem.hasPrefix("not recorded: a 301 from \(path) to "), "\(path): \(problem)")
        }
        XCTAssertNil(contents("moved/dirB/index"), "nothing moved into the index")
        XCTAssertNil(contents("moved/dirB"))
        // A redirect elsewhere (another path) is the backend's answer, recorded. (To the same
        // name's index with another query, `/moved/q2?a=1` → `/moved/q2/?a=2`, it is not:
        // without --files-with-query both name `moved/q2/index` once `moved/q2` is a directory;
        // testARedirectToTheIndexOfTheSameNameIsNotRecorded.)
        XCTAssertEqual(try CurlClient.run(["-H", "X-Location: /moved/other/", base + "/moved/away"]).status, 301)
        XCTAssertEqual(try CurlClient.run(["-H", "X-Location: /moved/q3/?a=2", base + "/moved/q2?a=1"]).status, 301)
        XCTAssertEqual(contents("moved/away"), "moved")
        XCTAssertEqual(contents("moved/q2"), "moved")
    }

    /// tester49a-F5, its redirects: `/api//users` → `301 /api/users` (empty segments are dropped
    /// in file names) was written over the good `api/users` recording, and `/products` →
    /// `302 /products?page=1&sort=default` (the query left out without `--files-with-query`)
    /// was recorded; replayed, each redirected to itself. Neither is recorded now.
    func testARedirectToATargetNamingTheSameFileIsNotRecorded() throws {
        let recorder = try recording()
        let base = "http://127.0.0.1:\(recorder.port)"
        XCTAssertEqual(try CurlClient.run([base + "/moved/api/users"]).status, 200)
        let good = try XCTUnwrap(contents("moved/api/users"))
        for (path, location) in [("/moved/api//users", "/moved/api/users"), ("/moved/products", "/moved/products?page=1&sort=default")] {
            XCTAssertEqual(try CurlClient.run(["-H", "X-Location: \(location)", base + path]).status, 301, path)
        }
        let problems = try E2E.journal(try recorder.client(), tenant: nil).suffix(2).map { $0["problem"] as? String ?? "none" }
        XCTAssertEqual(problems, [
            "not recorded: a 301 from /moved/api//users to /moved/api/users is a redirect to a target that names the same file mock "
                + "(moved/api/users, its query left out without --files-with-query): replayed, it would redirect to itself (docs/files.md#recording)",
            "not recorded: a 301 from /moved/products to /moved/products?page=1&sort=default is a redirect to a target that names the same "
                + "file mock (moved/products, its query left out without --files-with-query): replayed, it would redirect to itself "
                + "(docs/files.md#recording)",
        ])
        XCTAssertEqual(contents("moved/api/users"), good, "the good recording is kept")
        XCTAssertNil(contents("moved/products"))
        recorder.stop()
        let player = try replaying()
        let replayed = try CurlClient.run(["-L", "--max-redirs", "3", "http://127.0.0.1:\(player.port)/moved/api/users"])
        XCTAssertEqual(replayed.status, 200, "the recording, not a redirect to itself")
    }

    /// Tester finding tester71b-F1, its redirects: after a good `moved/x/index` recording (of
    /// `/moved/x/`), a redirect from `/moved/x` to `/moved/x//`, `/moved/x/index`, `/moved/x%2F`
    /// or `/moved/x/?`, or from `/moved/x?a=1` to `/moved/x/`, was recorded over it: each target
    /// names the name's index once it is a directory, but differs from the request's by more than
    /// the slash. Replayed, it redirected to itself. None is recorded now.
    func testARedirectToTheIndexOfTheSameNameIsNotRecorded() throws {
        let recorder = try recording()
        let base = "http://127.0.0.1:\(recorder.port)"
        XCTAssertEqual(try CurlClient.run([base + "/moved/x/"]).status, 200)
        XCTAssertEqual(try CurlClient.run([base + "/moved/x/a"]).status, 200)
        let good = try XCTUnwrap(contents("moved/x/index"))
        let cases: [(path: String, location: String)] = [
            ("/moved/x", "/moved/x//"), ("/moved/x", "/moved/x/index"), ("/moved/x", "/moved/x%2F"), ("/moved/x", "/moved/x/?"),
            ("/moved/x?a=1", "/moved/x/"), ("/moved/x?a=1", "/moved/x/?a=2"),
        ]
        for (path, location) in cases {
            XCTAssertEqual(try CurlClient.run(["-H", "X-Location: \(location)", base + path]).status, 301, location)
        }
        let problems = try E2E.journal(try recorder.client(), tenant: nil).suffix(cases.count).map { $0["problem"] as? String ?? "none" }
        for (problem, (path, location)) in zip(problems, cases) {
            XCTAssertEqual(
                problem,
                "not recorded: a 301 from \(path) to \(location) is a redirect to a target that names the same file mock "
                    + "(moved/x/index, once moved/x is a directory, its query left out without --files-with-query): replayed, it would "
                    + "redirect to itself (docs/files.md#recording)")
        }
        XCTAssertEqual(contents("moved/x/index"), good, "the good recording is kept")
        recorder.stop()
        let player = try replaying()
        XCTAssertEqual(try CurlClient.run(["-L", "--max-redirs", "3", "http://127.0.0.1:\(player.port)/moved/x"]).status, 200)
    }

    /// Tester finding tester52a-F4, its redirects: after a good `moved/flip` recording, a
    /// redirect to the very same target (`/moved/flip`, `./flip`, `/moved/flip#top`, the
    /// backend's own absolute URL) was recorded over it, and replay redirected to itself.
    func testARedirectToTheSameTargetIsNotRecorded() throws {
        let recorder = try recording()
        let base = "http://127.0.0.1:\(recorder.port)"
        XCTAssertEqual(try CurlClient.run([base + "/moved/flip"]).status, 200)
        let good = try XCTUnwrap(contents("moved/flip"))
        let locations = ["/moved/flip", "./flip", "/moved/flip#top", "\(upstream.baseURL)/moved/flip"]
        for location in locations {
            XCTAssertEqual(try CurlClient.run(["-H", "X-Location: \(location)", base + "/moved/flip"]).status, 301, location)
        }
        let problems = try E2E.journal(try recorder.client(), tenant: nil).suffix(locations.count).map { $0["problem"] as? String ?? "none" }
        for (problem, location) in zip(problems, locations) {
            XCTAssertEqual(
                problem,
                "not recorded: a 301 from /moved/flip to \(location) is a redirect to a target that names the same file mock "
                    + "(moved/flip, its query left out without --files-with-query): replayed, it would redirect to itself (docs/files.md#recording)")
        }
        XCTAssertEqual(contents("moved/flip"), good, "the good recording is kept")
        recorder.stop()
        let player = try replaying()
        XCTAssertEqual(try CurlClient.run(["-L", "--max-redirs", "3", "http://127.0.0.1:\(player.port)/moved/flip"]).status, 200)
    }

    /// Tester finding tester53a-F2: with a redirect URL that has a path (`…/base`), the backend's
    /// redirect to itself names its own `/base/moved/flip` (or its absolute URL), which the
    /// check compared with the client's `/moved/flip` and let through: the good recording was
    /// replaced. The `Location` is read under the redirect URL's path now.
    func testARedirectToItselfUnderTheRedirectURLsPathIsNotRecorded() throws {
        let recorder = try TestServer { settings in
            settings.redirectURL = self.upstream.baseURL + "/base"
            settings.recordMode = true
            settings.mocksDirectory = self.mocksDirectory.path
        }
        let base = "http://127.0.0.1:\(recorder.port)"
        XCTAssertEqual(try CurlClient.run([base + "/moved/flip"]).status, 200)
        let good = try XCTUnwrap(contents("moved/flip"))
        let locations = ["/base/moved/flip", "flip", "\(upstream.baseURL)/base/moved/flip"]
        for location in locations {
            XCTAssertEqual(try CurlClient.run(["-H", "X-Location: \(location)", base + "/moved/flip"]).status, 301, location)
        }
        let problems = try E2E.journal(try recorder.client(), tenant: nil).suffix(locations.count).map { $0["problem"] as? String ?? "none" }
        for (problem, location) in zip(problems, locations) {
            XCTAssertTrue(problem.hasPrefix("not recorded: a 301 from /moved/flip to \(location) is a redirect to "), "\(location): \(problem)")
        }
        XCTAssertEqual(contents("moved/flip"), good, "the good recording is kept")
        // A redirect outside the redirect URL's path is the backend's answer: recorded.
        XCTAssertEqual(try CurlClient.run(["-H", "X-Location: /moved/flip", base + "/moved/out"]).status, 301)
        XCTAssertEqual(contents("moved/out"), "moved")
    }

    /// Regression (tester finding tester40a-F7, its answers): an upstream answer with
    /// `Content-Type: application/json` twice, or `ETag: "a"` twice, was not recorded ("clients
    /// would read either value"), though both values are one. Such a repeat is recorded once and
    /// replayed with the one value; two different values are still refused.
    func testARepeatedFieldWithOneValueIsRecordedOnce() throws {
        let recorder = try recording()
        let client = try recorder.client()
        for path in ["/raw/twoctsame", "/raw/twoetag", "/raw/twoctdiff"] {
            XCTAssertEqual(try client.request("GET", path).status, 200, path)
        }
        let problems = try E2E.journal(client, tenant: nil).map { "\($0["url"] as? String ?? ""): \($0["problem"] as? String ?? "none")" }
        XCTAssertEqual(problems.count, 3, "\(problems)")
        XCTAssertTrue(problems.contains("/raw/twoctsame: none"), "\(problems)")
        XCTAssertTrue(problems.contains("/raw/twoetag: none"), "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("/raw/twoctdiff: not recorded: a file mock of this answer could not be served: ") },
            "\(problems)")

        let player = try replaying()
        let replayed = try player.client().request("GET", "/raw/twoctsame")
        XCTAssertEqual(replayed.status, 200, replayed.text)
        XCTAssertEqual(replayed.text, "{}")
        XCTAssertEqual(replayed.headers.filter { $0.name.lowercased() == "content-type" }.map(\.value), ["application/json"])
        let etag = try player.client().request("GET", "/raw/twoetag")
        XCTAssertEqual(etag.headers.filter { $0.name.lowercased() == "etag" }.map(\.value), [#""a""#])
        XCTAssertEqual(try player.client().request("GET", "/raw/twoctdiff").status, 404, "not recorded")
    }

    /// Regression (tester finding tester40a-F4, its targets): spellings of a control path that
    /// are no control path (`//catbird/…`, `/./catbird/…`, `/%63atbird/…`) were forwarded and
    /// recorded as `catbird/…`, and a replay answered a control `update` sent with a doubled
    /// slash from that file, 200, while no mock was stored. They are still forwarded, but not
    /// recorded, and the entry's `problem` says why.
    func testSpellingsOfAControlPathAreNotRecorded() throws {
        let recorder = try recording()
        for target in ["//catbird/api/health", "/./catbird/api/health", "/%63atbird/api/health", "//catbird/api/mocks"] {
            let answer = try E2E.exchange(recorder, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            XCTAssertFalse(answer.isEmpty, target)
        }
        let problems = try E2E.journal(try recorder.client(), tenant: nil).map { $0["problem"] as? String ?? "none" }
        XCTAssertEqual(problems.count, 4, "\(problems)")
        for problem in problems {
            XCTAssertTrue(problem.hasPrefix("not recorded: cannot write '\(mocksDirectory.path)/catbird/api/"), problem)
            XCTAssertTrue(problem.contains("its file would lie under catbird/"), problem)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: mocksDirectory.appendingPathComponent("catbird").path), "nothing under catbird/")
    }

    func testQueryStringInFileNamesKeepsRecordingsApart() throws {
        let recorder = try recording(query: true)
        let first = try CurlClient.run(["http://127.0.0.1:\(recorder.port)/echo/q?page=1"])
        let second = try CurlClient.run(["http://127.0.0.1:\(recorder.port)/echo/q?page=2"])
        XCTAssertNotEqual(first.body, second.body)
        recorder.stop()
        upstream.stop()
        let replayer = try replaying(query: true)
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(replayer.port)/echo/q?page=2"]).body, second.body)
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(replayer.port)/echo/q?page=1"]).body, first.body)
        XCTAssertEqual(try CurlClient.run(["http://127.0.0.1:\(replayer.port)/echo/q?page=3"]).status, 404)
    }

    /// Regression (try9a F15): without `--files-with-query`, recording `/api/list?page=1` then
    /// `?page=2` (`Accept: application/json`) kept only page 2 in `api/list.json`, with no
    /// warning and the same `filePath` on both journal entries; now the second entry's
    /// `problem` says what was replaced and how to keep both (a warning is logged once per file).
    func testARecordingThatReplacesAnotherQuerysSaysSo() throws {
        let recorder = try recording()
        for page in ["1", "2"] {
            let answer = try CurlClient.run(["-H", "Accept: application/json", "http://127.0.0.1:\(recorder.port)/api/list?page=\(page)"])
            XCTAssertEqual(answer.status, 200)
        }
        XCTAssertTrue(contents("api/list.json")?.contains("/api/list?page=2") == true, "the documented rule: one file a path")
        let journal = try E2E.journal(try recorder.client(), tenant: nil)
        XCTAssertEqual(journal.count, 2)
        let path = mocksDirectory.resolvingSymlinksInPath().appendingPathComponent("api/list.json").path
        XCTAssertEqual(journal.first?["filePath"] as? String, path)
        XCTAssertNil(journal.first?["problem"] as? String, "the first recording replaced nothing")
        XCTAssertEqual(
            journal.last?["problem"] as? String,
            "'\(path)' held the answer to /api/list?page=1, replaced by this answer to /api/list?page=2: the query is not part of a file "
                + "name; give --files-with-query to keep both")
        // The same query again replaces nothing of another query's.
        XCTAssertEqual(try CurlClient.run(["-H", "Accept: application/json", "http://127.0.0.1:\(recorder.port)/api/list?page=2"]).status, 200)
        XCTAssertNil(try E2E.journal(try recorder.client(), tenant: nil).last?["problem"] as? String)
    }

    /// tester23a-F2, the finding's targets: shard A's `/api/list?page=1&token=SECRET_OF_A`, then
    /// shard B's `/api/list?page=2`, recorded to one file; then A's `/p/a%2Fsecret-of-A.json`
    /// and B's `/p/a/secret-of-A.json`. B's entries said `… held the answer to
    /// /api/list?page=1&token=SECRET_OF_A, …`: another tenant's request-target in B's journal,
    /// HAR and page. Another tenant's target is not named; a tenant's own still is.
    func testAReplacedRecordingNeverNamesAnotherTenantsRequest() throws {
        let recorder = try recording()
        let client = try recorder.client()
        let cases = [
            ("/api/list?page=1&token=SECRET_OF_A", "/api/list?page=2", "api/list",
             "the query is not part of a file name; give --files-with-query to keep both"),
            ("/p/a%2Fsecret-of-A.json", "/p/a/secret-of-A.json", "p/a/secret-of-A.json",
             "both request-targets name this file (docs/files.md#request-to-file)"),
        ]
        for (first, second, file, why) in cases {
            XCTAssertEqual(try client.request("GET", first, headers: E2E.tenantHeader("shardA")).status, 200, first)
            XCTAssertEqual(try client.request("GET", second, headers: E2E.tenantHeader("shardB")).status, 200, second)
            let entry = try XCTUnwrap(E2E.journal(client, tenant: "shardB", query: "limit=1&order=newest").first)
            let path = mocksDirectory.resolvingSymlinksInPath().appendingPathComponent(file).path
            XCTAssertEqual(entry["filePath"] as? String, path)
            XCTAssertEqual(
                entry["problem"] as? String, "'\(path)' held the answer to another tenant's request, replaced by this answer to \(second): \(why)")
        }
        for view in ["/catbird/api/requests?limit=1000", "/catbird/api/requests.har"] {
            let answer = try client.request("GET", view, headers: E2E.tenantHeader("shardB"))
            XCTAssertEqual(answer.status, 200, view)
            XCTAssertTrue(answer.text.contains("another tenant's request"), "\(view): \(answer.text)")
            XCTAssertFalse(answer.text.contains("SECRET_OF_A") || answer.text.contains("a%2Fsecret"), "\(view): \(answer.text)")
        }
        // A tenant's own earlier request is still named.
        let (first, second, file, why) = cases[0]
        XCTAssertEqual(try client.request("GET", first, headers: E2E.tenantHeader("shardB")).status, 200, first)
        let path = mocksDirectory.resolvingSymlinksInPath().appendingPathComponent(file).path
        XCTAssertEqual(
            try XCTUnwrap(E2E.journal(client, tenant: "shardB", query: "limit=1&order=newest").first)["problem"] as? String,
            "'\(path)' held the answer to \(second), replaced by this answer to \(first): \(why)")
    }

    /// Regression (T11-F1, the tester's exact targets): two request-targets that are not one
    /// resource but name one file replaced each other's recording without a word: `/p/a%2Fb.json`
    /// then `/p/a/b.json` (a `%2F` in the path is decoded to `/`), and with `--files-with-query`
    /// `/fq?p=a/b` then `/fq?p=a%2Fb` (a query's `/` is written `%2F`) and `/fq?` then `/fq` (an
    /// empty query names no query). Each replacement's entry now has the `problem` the query
    /// case had; `/e%41` then `/eA`, one resource (RFC 3986 section 6.2.2.2), replaces silently.
    func testTwoTargetsThatShareAFileSaySoWhateverMadeThemShareIt() throws {
        let cases: [(query: Bool, first: String, second: String, file: String, collides: Bool)] = [
            (false, "/p/a%2Fb.json", "/p/a/b.json", "p/a/b.json", true),
            (true, "/fq?p=a/b", "/fq?p=a%2Fb", "fq?p=a%2Fb", true),
            (true, "/fq?", "/fq", "fq", true),
            (true, "/e%41", "/eA", "eA", false),
        ]
        for (query, first, second, file, collides) in cases {
            try? FileManager.default.removeItem(at: mocksDirectory)
            let recorder = try recording(query: query)
            let client = try recorder.client()
            for target in [first, second] {
                XCTAssertEqual(try client.request("GET", target).status, 200, target)
            }
            let journal = try E2E.journal(client, tenant: nil)
            let path = mocksDirectory.resolvingSymlinksInPath().appendingPathComponent(file).path
            XCTAssertEqual(journal.map { $0["filePath"] as? String }, [path, path], "both recorded to one file: \(first) \(second)")
            XCTAssertEqual(journal.map { $0["url"] as? String }, [first, second])
            XCTAssertNil(journal.first?["problem"] as? String, "the first recording replaced nothing")
            XCTAssertEqual(
                journal.last?["problem"] as? String,
                collides ? "'\(path)' held the answer to \(first), replaced by this answer to \(second): both request-targets name this file "
                    + "(docs/files.md#request-to-file)" : nil,
                "\(first) then \(second)")
            recorder.stop()
        }
    }

    /// tester39a-F3, the exact targets: NFC `/r%C3%A9` and NFD `/re%CC%81`, `/K` and the KELVIN
    /// SIGN's `/%E2%84%AA` are recorded to two files side by side (names are bytes), yet the
    /// second of each pair was said to have replaced the first, in its `problem` and a warning.
    func testCanonicallyEquivalentTargetsRecordedToTwoFilesReplaceNothing() throws {
        let recorder = try recording()
        let client = try recorder.client()
        let pairs = [("/r%C3%A9", "/re%CC%81", "r\u{E9}", "re\u{301}"), ("/K", "/%E2%84%AA", "K", "\u{212A}")]
        for (first, second, _, _) in pairs {
            for target in [first, second] { XCTAssertEqual(try client.request("GET", target).status, 200, target) }
        }
        let journal = try E2E.journal(client, tenant: nil)
        let root = mocksDirectory.resolvingSymlinksInPath().path
        XCTAssertEqual(
            journal.map { Array(($0["filePath"] as? String ?? "").utf8) },
            pairs.flatMap { [Array((root + "/" + $0.2).utf8), Array((root + "/" + $0.3).utf8)] }, "four files")
        for entry in journal { XCTAssertNil(entry["problem"] as? String, "\(entry["url"] ?? "") replaced nothing: \(entry)") }
        recorder.stop()
    }

    /// Tester finding try8b F9: with `--files-with-query`, `/q?y.catbird-response.json` was
    /// recorded as a body file over `q?y`'s sidecar (its replay then a 500), and served the
    /// sidecar of `q?..%2F..%2Fz` as a body. A name ending in the sidecar suffix, query
    /// included, is neither recorded nor served.
    func testAQueryNamingASidecarIsNeitherRecordedNorServed() throws {
        let recorder = try recording(query: true)
        let base = "http://127.0.0.1:\(recorder.port)"
        let kept = try CurlClient.run(["\(base)/echo/q?y"])
        XCTAssertEqual(kept.status, 200)
        let sidecar = contents("echo/q?y.catbird-response.json")
        XCTAssertNotNil(sidecar)
        let forged = try CurlClient.run(["\(base)/echo/q?y.catbird-response.json"])
        XCTAssertEqual(forged.status, 200, "forwarded, only not recorded")
        XCTAssertEqual(contents("echo/q?y.catbird-response.json"), sidecar, "the sidecar is left as recorded")
        XCTAssertNil(contents("echo/q?y.catbird-response.json.catbird-response.json"))
        recorder.stop()
        upstream.stop()
        let replayer = try replaying(query: true)
        let replayed = try CurlClient.run(["http://127.0.0.1:\(replayer.port)/echo/q?y"])
        XCTAssertEqual(replayed.status, 200)
        XCTAssertEqual(replayed.body, kept.body)
        let asked = try CurlClient.run(["http://127.0.0.1:\(replayer.port)/echo/q?y.catbird-response.json"])
        XCTAssertEqual(asked.status, 404, "a sidecar is never a body: \(String(decoding: asked.body, as: UTF8.self))")
    }
}
