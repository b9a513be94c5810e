import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// File mocks from `--mocks-dir` over loopback: lookup, Accept candidates, sidecars, ETag,
/// confinement, and their place after the dynamic mocks.
final class FileMockServingTests: XCTestCase {
    private var mocksDirectory: URL!
    private var outside: URL!

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-files-\(UUID().uuidString)")
        mocksDirectory = base.appendingPathComponent("mocks")
        outside = base.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: mocksDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let mocksDirectory { try? FileManager.default.removeItem(at: mocksDirectory.deletingLastPathComponent()) }
    }

    private func write(_ name: String, _ bytes: [UInt8]) throws {
        let url = mocksDirectory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    private func write(_ name: String, _ text: String) throws { try write(name, Array(text.utf8)) }

    private func server() throws -> TestServer {
        try TestServer { $0.mocksDirectory = self.mocksDirectory.path }
    }

    func testFileAnswersWithTypeFromExtensionAndIsJournaled() throws {
        try write("api/books.json", #"[{"id":1}]"#)
        let server = try server()
        let client = try server.client()
        let answer = try client.request("GET", "/api/books.json?page=1")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, #"[{"id":1}]"#)
        XCTAssertEqual(answer.header("Content-Type"), "application/json")
        XCTAssertNotNil(answer.header("ETag"))
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).last)
        XCTAssertEqual(entry["answeredBy"] as? String, "file")
        XCTAssertEqual(entry["url"] as? String, "/api/books.json?page=1")
        let root = try XCTUnwrap(realpath(mocksDirectory.path, nil))
        defer { free(root) }
        XCTAssertEqual(entry["filePath"] as? String, String(cString: root) + "/api/books.json")
        let rows = try E2E.sqlRows(client, "SELECT file_path FROM requests WHERE answered_by = 'file'")
        XCTAssertEqual(rows.first?.first as? String, String(cString: root) + "/api/books.json")
        XCTAssertEqual(try client.request("GET", "/missing").status, 404)
        XCTAssertTrue(try XCTUnwrap(try E2E.journal(client, tenant: nil).last)["filePath"] is NSNull, "null when no file")
    }

    func testAcceptCandidatesInPreferenceOrderThenBare() throws {
        try write("profile.json", "json")
        try write("profile.html", "html")
        try write("profile", "bare")
        try write("a b.txt", "spaced")
        let server = try server()
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/profile", headers: [("Accept", "text/html;q=0.9, application/json")]).text, "json")
        let html = try client.request("GET", "/profile", headers: [("Accept", "application/json;q=0.1, text/html")])
        XCTAssertEqual(html.text, "html")
        XCTAssertEqual(html.header("Content-Type"), "text/html")
        XCTAssertEqual(try client.request("GET", "/profile", headers: [("Accept", "image/png")]).text, "bare")
        XCTAssertEqual(try client.request("GET", "/profile").text, "bare")
        XCTAssertEqual(try client.request("GET", "/a%20b.txt").text, "spaced")
        XCTAssertEqual(try client.request("GET", "/a%2520b.txt").status, 404, "decoded once only")
    }

    /// try8a F6's exact inputs: the README's `mocks/api/books.json` and JSON:API, HAL and
    /// GitHub clients' `Accept` (404 before: /etc/mime.types gives those types no extension).
    func testStructuredSyntaxSuffixAcceptFindsTheJSONFile() throws {
        try write("api/books.json", #"{"books":[]}"#)
        let server = try server()
        let client = try server.client()
        for accept in ["application/vnd.api+json", "application/hal+json", "application/vnd.github+json"] {
            let answer = try client.request("GET", "/api/books", headers: [("Accept", accept)])
            XCTAssertEqual(answer.status, 200, "\(accept): \(answer.text)")
            XCTAssertEqual(answer.text, #"{"books":[]}"#)
            XCTAssertEqual(answer.header("Content-Type"), "application/json", "the file's type, from its extension")
        }
    }

    func testSidecarStatusHeadersAndNotModified() throws {
        try write("login", #"{"token":"t"}"#)
        try write("login.catbird-response.json", #"{"status": 201, "headers": {"Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"]}}"#)
        try write("logo.png", [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0x0D, 0x0A])
        let server = try server()
        let client = try server.client()
        let login = try client.request("POST", "/login", body: Array("{}".utf8))
        XCTAssertEqual(login.status, 201)
        XCTAssertEqual(login.header("Content-Type"), "application/json")
        XCTAssertEqual(login.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value), ["a=1", "b=2"])
        let logo = try client.request("GET", "/logo.png")
        XCTAssertEqual(logo.body, [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0x0D, 0x0A])
        XCTAssertEqual(logo.header("Content-Type"), "image/png")
        let tag = try XCTUnwrap(logo.header("ETag"))
        let again = try client.request("GET", "/logo.png", headers: [("If-None-Match", "\"other\", \(tag)")])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body, [])
        XCTAssertEqual(again.header("ETag"), tag)
        XCTAssertEqual(try client.request("GET", "/logo.png", headers: [("If-None-Match", "\"other\"")]).status, 200)
    }

    func testLargeFileIsSentFromDiskAndJournaledAsAPrefix() throws {
        var generator = SystemRandomNumberGenerator()
        let big = (0..<(5 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try write("big.bin", big)
        let server = try server()
        let client = try server.client()
        let answer = try client.request("GET", "/big.bin")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("Content-Length"), "\(big.count)")
        XCTAssertTrue(answer.body == big, "the same 5 MiB, byte for byte")
        XCTAssertEqual(try client.request("HEAD", "/big.bin").status, 200)
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil, query: "limit=1000").first)
        let response = try XCTUnwrap(entry["response"] as? [String: Any])
        XCTAssertEqual(response["bodySize"] as? Int, big.count)
        XCTAssertEqual(response["bodyTruncated"] as? Bool, true)
        let stored = Data(base64Encoded: response["bodyBase64"] as? String ?? "") ?? Data()
        XCTAssertEqual(Array(stored), Array(big.prefix(64 * 1024)), "the journal keeps the first --journal-body-limit bytes")
    }

    /// Tester finding tester46b-F2, its files: a hand-written file of a 234-byte name (legal: 255
    /// at most) answered 500 "sidecar … cannot be looked up (File name too long)": its sidecar's
    /// name would pass 255 bytes, so it can have none, and it is served as a file without one.
    func testAFileWhoseSidecarsNameWouldBeTooLongIsServed() throws {
        let long = String(repeating: "n", count: 230) + ".txt"
        let shorter = String(repeating: "n", count: 229) + ".txt"
        try write(long, "hi")
        try write(shorter, "hi")
        let server = try server()
        for name in [shorter, long] {
            let answer = try server.client().request("GET", "/" + name)
            XCTAssertEqual(answer.status, 200, "\(name.utf8.count) bytes: \(answer.text)")
            XCTAssertEqual(answer.text, "hi")
            XCTAssertEqual(answer.header("Content-Type")?.hasPrefix("text/plain"), true)
        }
    }

    func testBrokenSidecarAnswers500NamingIt() throws {
        try write("x.json", "{}")
        try write("x.json.catbird-response.json", "not json")
        let server = try server()
        let answer = try server.client().request("GET", "/x.json")
        XCTAssertEqual(answer.status, 500)
        XCTAssertTrue(answer.text.contains("x.json.catbird-response.json"), answer.text)
        XCTAssertEqual(answer.object["error"] as? Bool, true)
    }

    /// Regression (tester finding tester36a-F3): a sidecar that exists but cannot be used (a
    /// symlink leading outside the mocks directory, a dangling one, a directory, a FIFO) was
    /// taken for none: its file answered 200 with a guessed `Content-Type` where the sidecar
    /// said 401, nothing logged or journaled. Each now answers 500 naming the sidecar and why;
    /// a symlink to a sidecar inside the directory is still followed.
    func testASidecarThatExistsButCannotBeUsedAnswers500SayingWhy() throws {
        let shared = #"{"status":401,"headers":{"WWW-Authenticate":"Bearer"}}"#
        try Data(shared.utf8).write(to: outside.appendingPathComponent("401.json"))
        try write("shared/401.json", shared)
        for name in ["auth", "auth2", "dir", "fifo", "gone", "loop"] { try write("\(name).txt", "b") }
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(
            atPath: mocksDirectory.appendingPathComponent("auth.txt.catbird-response.json").path, withDestinationPath: outside.appendingPathComponent("401.json").path)
        try fileManager.createSymbolicLink(atPath: mocksDirectory.appendingPathComponent("auth2.txt.catbird-response.json").path, withDestinationPath: "shared/401.json")
        try fileManager.createDirectory(at: mocksDirectory.appendingPathComponent("dir.txt.catbird-response.json"), withIntermediateDirectories: false)
        XCTAssertEqual(mkfifo(mocksDirectory.appendingPathComponent("fifo.txt.catbird-response.json").path, 0o644), 0)
        try fileManager.createSymbolicLink(atPath: mocksDirectory.appendingPathComponent("gone.txt.catbird-response.json").path, withDestinationPath: "nothing.json")
        // tester finding tester37a-F3: a loop was called a symlink to nothing.
        try fileManager.createSymbolicLink(
            atPath: mocksDirectory.appendingPathComponent("loop.txt.catbird-response.json").path, withDestinationPath: "loop.txt.catbird-response.json")
        let server = try server()

        let followed = try server.client().request("GET", "/auth2.txt")
        XCTAssertEqual(followed.status, 401, "a symlink inside the directory is followed")
        XCTAssertEqual(followed.header("WWW-Authenticate"), "Bearer")
        let expected = [
            "auth": "it is a symlink, or under one, leading outside the mocks directory: symlinks are followed only within it",
            "dir": "it is a directory, not a regular file",
            "fifo": "it is a FIFO, not a regular file",
            "gone": "it is a symlink to nothing (its target does not exist)",
            "loop": "it is a symlink loop, or under one (too many levels of symbolic links)",
        ]
        for (name, reason) in expected {
            let answer = try server.client().request("GET", "/\(name).txt")
            XCTAssertEqual(answer.status, 500, "\(name): \(answer.text)")
            XCTAssertEqual(answer.object["error"] as? Bool, true)
            let text = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(text.hasPrefix("file mock sidecar '"), text)
            XCTAssertTrue(text.contains("\(name).txt.catbird-response.json': \(reason)"), text)
        }
    }

    /// Tester finding try8a F10: `{"satus":201,"header":{"X-Trace":"1"}}` was served as a plain
    /// 200 without `X-Trace`, nothing said; an unknown key is refused like a wrong value.
    func testASidecarWithAMisspelledKeyAnswers500NamingIt() throws {
        try write("f.json", #"{"a":1}"#)
        try write("f.json.catbird-response.json", #"{"satus":201,"header":{"X-Trace":"1"}}"#)
        try write("g.json", #"{"a":1}"#)
        try write("g.json.catbird-response.json", #"{"status":201,"extra":1}"#)
        let server = try server()
        let client = try server.client()
        E2E.assertError(
            try client.request("GET", "/f.json"), status: 500,
            reasonContains: #"f.json.catbird-response.json': unknown keys "header", "satus": the keys of a sidecar are "status", "headers" and "recordedMethod""#)
        E2E.assertError(try client.request("GET", "/g.json"), status: 500, reasonContains: #"unknown key "extra": the keys of a sidecar"#)
        try write("g.json.catbird-response.json", #"{"status":201,"recordedMethod":"GET"}"#)
        XCTAssertEqual(try client.request("GET", "/g.json").status, 201, "the known keys are served")
    }

    /// Tester finding tester71b-F2, its sidecar: a file whose sidecar is broken answered its
    /// 500, journaled as `answeredBy` `file` with `filePath` null and no `problem`, so a suite
    /// looking for broken fixtures could not tell which. The entry names the file and the reason.
    func testABrokenSidecarsAnswerIsJournaledNamingTheFile() throws {
        try write("s/h", "data")
        try write("s/h.catbird-response.json", #"{"status":"200"}"# + "\n")
        let server = try server()
        let client = try server.client()
        let answer = try client.request("GET", "/s/h", headers: [("X-Catbird-Parallel-Id", "sc")])
        XCTAssertEqual(answer.status, 500, answer.text)
        let entry = try XCTUnwrap(E2E.journal(client, tenant: "sc").first)
        XCTAssertEqual(entry["answeredBy"] as? String, "file")
        XCTAssertEqual(entry["filePath"] as? String, mocksDirectory.appendingPathComponent("s/h").path)
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("file mock sidecar '\(mocksDirectory.appendingPathComponent("s/h.catbird-response.json").path)': "), problem)
        XCTAssertEqual(problem, answer.object["reason"] as? String)
    }

    /// Tester finding T15B-F11, the exact sidecars: a trailing comma and a key given twice were
    /// served (the lenient parser read them, the last `status` winning), and a comment got
    /// "not a JSON object". A sidecar is now read by the control bodies' strict JSON reader and
    /// refused with its reason (line, column, byte offset; the key named), naming the file.
    /// The reasons call the text "the file", not "the body" (re-read of T15B-F11: a sidecar's
    /// repeated key was "the JSON body has the key …", an unclosed string "the body ends inside it").
    /// One nested past 512 levels gets the control bodies' reason (tester56a-F6: "not a JSON object").
    func testASidecarIsReadAsStrictlyAsAControlBody() throws {
        let cases = [
            (
                "comma", #"{"status": 201, "headers": {"X-A": "1"},}"#,
                "invalid JSON at line 1, column 40 (byte offset 39): a trailing comma before '}': JSON allows none (RFC 8259)"
            ),
            (
                "twice", #"{"status": 201, "status": 202}"#,
                #"the JSON file has the key "status" more than once; give each key once"#
            ),
            (
                "open", #"{"status": 201, "headers": {"X-A": "1"#,
                "invalid JSON at line 1, column 36 (byte offset 35): a string that is never closed: the file ends inside it"
            ),
            (
                "empty", " \n",
                "invalid JSON at line 2, column 1 (byte offset 2): the file is empty: a JSON value was expected"
            ),
            (
                "more", #"{"status": 201} {"#,
                "invalid JSON at line 1, column 17 (byte offset 16): more text after the JSON value: found '{' (a file holds one value)"
            ),
            (
                "comment", "{\"status\": 201 // created\n}",
                "invalid JSON at line 1, column 16 (byte offset 15): a comment: JSON has no comments (RFC 8259)"
            ),
            // tester56a-F6, its sidecar: 513 levels of arrays were "not a JSON object".
            (
                "deep", "{\"status\":200,\"x\":" + String(repeating: "[", count: 513) + String(repeating: "]", count: 513) + "}",
                "the sidecar nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels"
            ),
        ]
        for (name, sidecar, _) in cases {
            try write("\(name).json", #"{"a":1}"#)
            try write("\(name).json.catbird-response.json", sidecar)
        }
        let server = try server()
        let client = try server.client()
        for (name, _, reason) in cases {
            E2E.assertError(
                try client.request("GET", "/\(name).json"), status: 500, reasonContains: "\(name).json.catbird-response.json': " + reason)
        }
        try write("twice.json.catbird-response.json", #"{"status": 202}"#)
        XCTAssertEqual(try client.request("GET", "/twice.json").status, 202, "a sidecar that is JSON is served")
    }

    /// Regression: a sidecar with `{"status": 100}` sent the interim line alone and the client
    /// hung; 101 switched protocols and left the connection open. A sidecar follows the mocks'
    /// rule (docs/files.md#sidecar): refused, answered 500 naming it, the connection usable.
    func testSidecarThatCannotBeSentAsGivenAnswers500NamingTheRule() throws {
        try write("api/books.json", #"{"books":["Dune"]}"#)
        try write("api/books.json.catbird-response.json", #"{"status": 100}"#)
        try write("api/switch.json", "{}")
        try write("api/switch.json.catbird-response.json", #"{"status": 101}"#)
        try write("api/empty", "x")
        try write("api/empty.catbird-response.json", #"{"status": 204}"#)
        try write("api/chunked", "abc")
        try write("api/chunked.catbird-response.json", #"{"headers": {"Transfer-Encoding": "chunked"}}"#)
        try write("api/gone", "")
        try write("api/gone.catbird-response.json", #"{"status": 204}"#)
        // The mocks' rules of T13B-F2 and T13B-F3: one Content-Type, no spaces around a value.
        try write("api/types", "x")
        try write("api/types.catbird-response.json", #"{"headers": {"Content-Type": ["a/b", "c/d"]}}"#)
        try write("api/spaced", "x")
        try write("api/spaced.catbird-response.json", #"{"headers": {"X-B": " lead"}}"#)
        let server = try server()
        let client = try server.client()
        let cases = [
            ("/api/books.json", "'status' must be between 200 and 599, not 100"), ("/api/switch.json", "not 101"),
            ("/api/empty", "the body file must be empty"), ("/api/chunked", "Transfer-Encoding"),
            ("/api/types", #"header "Content-Type" is a second Content-Type (beside "Content-Type")"#),
            ("/api/spaced", #"header "X-B" has a space at the start or end of its value"#),
        ]
        for (target, reason) in cases {
            let answer = try client.request("GET", target)
            E2E.assertError(answer, status: 500, reasonContains: reason)
            XCTAssertTrue(answer.text.contains(".catbird-response.json"), answer.text)
        }
        XCTAssertEqual(try client.request("GET", "/api/gone").status, 204, "an empty 204 file is sent, on the same connection")
    }

    /// A sidecar `status` that is no whole number is refused naming the mocks' status range, in
    /// the rule's words (docs/files.md#sidecar).
    func testASidecarStatusThatIsNoNumberNamesTheStatusRange() throws {
        try write("api/quoted.json", "{}")
        try write("api/quoted.json.catbird-response.json", #"{"status": "201"}"#)
        let server = try server()
        let client = try server.client()
        let answer = try client.request("GET", "/api/quoted.json")
        E2E.assertError(answer, status: 500, reasonContains: "api/quoted.json.catbird-response.json")
        let reason = answer.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasSuffix("'status' must be a whole number between 200 and 599"), reason)
    }

    func testTraversalFormsNeverReadOutside() throws {
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: mocksDirectory.appendingPathComponent("link").path, withDestinationPath: outside.path)
        try write("inside.txt", "inside")
        let server = try server()
        let client = try server.client()
        for target in [
            "/../outside/secret.txt", "/%2e%2e/outside/secret.txt", "/%2E%2E%2Foutside%2Fsecret.txt",
            "/..%2foutside%2fsecret.txt", "/..%5coutside%5csecret.txt", "/..\\outside\\secret.txt",
            "/link/secret.txt", "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd", "/" + outside.path + "/secret.txt",
            "http://localhost/../outside/secret.txt", "http://../outside/secret.txt",
        ] {
            let answer = try client.request("GET", target)
            XCTAssertEqual(answer.status, 404, target)
            // The 404's reason names the target (secret.txt); the file's content must not appear.
            XCTAssertFalse(answer.text.replacingOccurrences(of: "secret.txt", with: "").contains("secret"), target)
            XCTAssertFalse(answer.text.contains("root:"), target)
        }
        XCTAssertEqual(try client.request("GET", "/inside.txt").text, "inside")
    }

    /// Regression (try7b F13): with `--mocks-dir` an NFC-named `mdé`, a symlink inside it to the
    /// sibling directory NFD-named `mdé` (another directory to the file system) was followed and
    /// its file served: the inside check compared the two names as equal text.
    func testASymlinkToASiblingNamedByAnotherNormalizationIsOutside() throws {
        let base = mocksDirectory.deletingLastPathComponent()
        let root = base.path + "/md\u{E9}", sibling = base.path + "/mde\u{301}"
        XCTAssertNotEqual(Array(root.utf8), Array(sibling.utf8))
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: sibling, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: sibling + "/secret.txt"))
        try Data("inside".utf8).write(to: URL(fileURLWithPath: root + "/inside.txt"))
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: sibling)
        let server = try TestServer { $0.mocksDirectory = root }
        let client = try server.client()
        let answer = try client.request("GET", "/link/secret.txt")
        XCTAssertEqual(answer.status, 404, answer.text)
        XCTAssertFalse(answer.text.replacingOccurrences(of: "secret.txt", with: "").contains("secret"), answer.text)
        XCTAssertEqual(try client.request("GET", "/inside.txt").text, "inside")
    }

    func testProxyFormLooksUnderTheHost() throws {
        try write("api.example.com/v1/items.json", "[]")
        let server = try server()
        let client = try server.client()
        let answer = try client.request("GET", "http://API.example.com:8080/v1/items.json", headers: [("Host", "api.example.com:8080")])
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "[]")
        XCTAssertEqual(try client.request("GET", "/v1/items.json").status, 404)
    }

    func testTenantAndDefaultMocksBeatFilesAndFilesBeatNotFound() throws {
        try write("shared.txt", "file")
        let server = try server()
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/shared.txt", headers: [("X-Catbird-Parallel-Id", "p1")]).text, "file")
        try E2E.addMock(client, tenant: nil, url: "/shared.txt", body: "default mock")
        XCTAssertEqual(try client.request("GET", "/shared.txt", headers: [("X-Catbird-Parallel-Id", "p1")]).text, "default mock")
        try E2E.addMock(client, tenant: "p1", url: "/shared.txt", body: "tenant mock")
        XCTAssertEqual(try client.request("GET", "/shared.txt", headers: [("X-Catbird-Parallel-Id", "p1")]).text, "tenant mock")
        XCTAssertEqual(try client.request("GET", "/shared.txt", headers: [("X-Catbird-Parallel-Id", "p2")]).text, "default mock")
        XCTAssertEqual(try client.request("GET", "/missing.txt").status, 404)
        try write("catbird/api/mocks", "never")
        XCTAssertNotEqual(try client.request("GET", "/catbird/api/mocks").text, "never", "control routes are not files")
    }

    func testMissingDirectoryStopsStartUp() {
        XCTAssertThrowsError(try TestServer { $0.mocksDirectory = "/nonexistent/catbird-mocks" }) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/catbird-mocks"), "\(error)")
        }
    }
}
