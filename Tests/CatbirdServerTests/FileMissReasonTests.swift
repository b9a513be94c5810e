import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// With a mocks directory, a 404's reason says which file names were tried and names a file
/// with an extension beside the bare name with the `Accept` that selects it
/// (docs/matching.md#near-misses). try5 finding 7: it talked only about dynamic mocks.
final class FileMissReasonTests: XCTestCase {
    func testA404NamesTheFilesTriedAndTheAcceptThatSelectsTheFileBeside() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-miss-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("api"), withIntermediateDirectories: true)
        try Data("{\"books\":[]}\n".utf8).write(to: directory.appendingPathComponent("api/books.json"))
        try Data("<h1>x</h1>\n".utf8).write(to: directory.appendingPathComponent("index.html"))
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let base = "http://127.0.0.1:\(server.port)"

        // curl's default Accept: */* adds no extension.
        let books = try CurlClient.run(["\(base)/api/books"])
        XCTAssertEqual(books.status, 404)
        XCTAssertEqual(Set(books.object.keys), ["error", "reason", "tenant", "nearMisses"], "the 404's documented shape")
        XCTAssertEqual(
            books.object["reason"] as? String,
            "no mock matched GET /api/books in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); it has no mocks; "
                + "no file mock in \(root) (tried api/books); api/books.json is beside it: send Accept: application/json, or add .json to the path")
        let index = try CurlClient.run(["\(base)/"])
        XCTAssertEqual(index.status, 404)
        XCTAssertTrue((index.object["reason"] as? String ?? "").hasSuffix(
            "; no file mock in \(root) (tried index); index.html is beside it: send Accept: text/html, or ask for /index.html"),
            "\(index.object)")
        // With an Accept that has extensions, every name tried is listed; nothing beside.
        let missing = try CurlClient.run(["-H", "Accept: application/json", "\(base)/api/none"])
        XCTAssertTrue((missing.object["reason"] as? String ?? "").hasSuffix("; no file mock in \(root) (tried api/none.json, api/none)"), "\(missing.object)")
        // The same request again after a file appeared beside it: the reason is not a kept one.
        try Data("x\n".utf8).write(to: directory.appendingPathComponent("api/none.txt"))
        let again = try CurlClient.run(["-H", "Accept: application/json", "\(base)/api/none"])
        XCTAssertTrue((again.object["reason"] as? String ?? "").hasSuffix(
            "; no file mock in \(root) (tried api/none.json, api/none); api/none.txt is beside it: send Accept: text/plain, or add .txt to the path"),
            "\(again.object)")
        // The hint was right: the Accept it names selects the file.
        XCTAssertEqual(try CurlClient.run(["-H", "Accept: application/json", "\(base)/api/books"]).status, 200)
    }

    /// Regression (tester finding tester28b-F1): with the mocks directory (here through a
    /// symbolic link, as in the finding) moved away under the running server, `GET /ten.txt`
    /// got `no file mock in <dir> (tried ten.txt)`, as if the file were missing. The reason now
    /// says the directory is gone; back, the file is served again. Health said `ok` all the
    /// while (tester29b's leftover: a readiness probe kept the node in service); it now
    /// answers 503 with the same reason until the directory is back.
    func testA404AndHealthSayTheMocksDirectoryIsGone() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-gone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent("m")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("0123456789".utf8).write(to: directory.appendingPathComponent("ten.txt"))
        let link = base.appendingPathComponent("mlink")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: directory)
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer { $0.mocksDirectory = link.path }
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/ten.txt").text, "0123456789")
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)

        let moved = base.appendingPathComponent("m.moved")
        try FileManager.default.moveItem(at: directory, to: moved)
        let gone = try client.request("GET", "/ten.txt")
        XCTAssertEqual(gone.status, 404)
        XCTAssertTrue(
            (gone.object["reason"] as? String ?? "").hasSuffix(
                "; no file mock in \(root) (tried ten.txt); the mocks directory \(root) does not exist any more (it did at start-up): "
                    + "nothing in it is served until it is back (the server reads it at each request)"), gone.text)
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertEqual(health.object["status"] as? String, "degraded")
        XCTAssertEqual(
            health.object["reason"] as? String,
            "the mocks directory \(root) does not exist any more (it did at start-up): nothing in it is served until it is back "
                + "(the server reads it at each request); a request no dynamic mock answers gets 404 meanwhile, dynamic mocks "
                + "and the journal work as before")
        try Data("x".utf8).write(to: directory)  // a file in its place
        XCTAssertTrue((try client.request("GET", "/ten.txt").object["reason"] as? String ?? "").hasSuffix(
            "the mocks directory \(root) is no longer a directory (it was at start-up): nothing in it is served until it is again"))
        try FileManager.default.removeItem(at: directory)
        try FileManager.default.moveItem(at: moved, to: directory)
        XCTAssertEqual(try client.request("GET", "/ten.txt").text, "0123456789", "served again once it is back")
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200, "healthy again once it is back")
        let missing = try client.request("GET", "/eleven.txt")
        XCTAssertFalse((missing.object["reason"] as? String ?? "").contains("mocks directory"), missing.text)
    }

    /// Regression (tester finding tester32a-F4, its steps): health's `since` for a mocks
    /// directory gone was the time of each check, a second later with every call a second
    /// apart, so a monitor reading how long the fixtures had been missing got about 0 s. It is
    /// now when health first saw it gone (the server looks only when asked), until it is back.
    func testHealthsSinceIsWhenTheMocksDirectoryWasFirstSeenGone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-sd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let client = try server.client()
        func since() throws -> String? {
            let health = try client.request("GET", "/catbird/api/health")
            return health.status == 503 ? health.object["since"] as? String : nil
        }
        XCTAssertNil(try since())
        try FileManager.default.removeItem(at: directory)
        let first = try XCTUnwrap(try since())
        usleep(1_100_000)
        XCTAssertEqual(try since(), first, "the same fault, the same since")
        try Data("x".utf8).write(to: directory)  // still gone: a file in its place
        XCTAssertEqual(try since(), first)
        try FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        XCTAssertNil(try since(), "back: healthy")
        usleep(20_000)
        try FileManager.default.removeItem(at: directory)
        XCTAssertNotEqual(try XCTUnwrap(try since()), first, "gone again: a new since")
    }

    /// Regression (T11-F7, the tester's exact setup): `ln -s /etc/passwd mocks/leak; curl /leak`
    /// got a 404 saying only `no file mock in … (tried leak)`; a fixtures folder linked in from
    /// elsewhere got no hint either. The reason now says the name leads outside.
    /// Regression (tester finding T18A-F7), the exact layout: `index.html` and `docs/index.html`;
    /// `/` and `/docs/` were told "add .html to the path", and `/.html` is a 404 too. The
    /// reason names the target that is served (the query kept, a fragment left out).
    /// Regression (tester finding tester36a-F8, the finding's files): recordings made with
    /// `--files-with-query` (`list?page=2`) replayed without it, and a plain `items.json` asked
    /// with a query on a server with it, got 404s naming neither the file nor the option.
    func testA404NamesTheFileTheOtherQueryRuleWouldServe() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fq-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"page":2}"#.utf8).write(to: directory.appendingPathComponent("list?page=2"))
        try Data(#"{"all":1}"#.utf8).write(to: directory.appendingPathComponent("items.json"))
        try Data("qx".utf8).write(to: directory.appendingPathComponent("q?x"))  // tester65a-F1's recording of /q%3Fx
        // A collection recorded without the option, then moved into its index by an item
        // (tester finding tester37a-F2: no hint for it).
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("users"), withIntermediateDirectories: true)
        try Data(#"{"users":[]}"#.utf8).write(to: directory.appendingPathComponent("users/index"))
        let root = directory.resolvingSymlinksInPath().path
        let cases: [(withQuery: Bool, missed: String, tried: String, hint: String, served: [(target: String, body: String)])] = [
            // Tester finding tester65a-F1: a name holding a '?' is served without the option
            // too, to the target that sends it as %3F (as record mode without it wrote it from
            // `/q%3Fx`); the hint sent users to --files-with-query only.
            (false, "/list?page=2", "list",
             "list?page=2 is there: its name holds the query, which is served with --files-with-query, or without it to /list%3Fpage=2 (a '?' in a file name is %3F in the path)",
             [("/list%3Fpage=2", #"{"page":2}"#), ("/items.json?page=2", #"{"all":1}"#)]),
            (false, "/q?x", "q", "q?x is there: its name holds the query, which is served with --files-with-query, or without it to /q%3Fx (a '?' in a file name is %3F in the path)",
             [("/q%3Fx", "qx")]),
            (true, "/items.json?page=2", "items.json?page=2",
             "items.json is there: its name leaves the query out, which is served without --files-with-query", [("/list?page=2", #"{"page":2}"#)]),
        ]
        var with: TestServer?
        for rule in cases {
            let server = try TestServer {
                $0.mocksDirectory = directory.path
                $0.filesIncludeQuery = rule.withQuery
            }
            let missed = try server.client().request("GET", rule.missed)
            XCTAssertEqual(missed.status, 404)
            let reason = missed.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.hasSuffix("no file mock in \(root) (tried \(rule.tried)); \(rule.hint) (docs/files.md#query-strings)"), missed.text)
            for served in rule.served { XCTAssertEqual(try server.client().request("GET", served.target).text, served.body, served.target) }
            with = server
        }
        let collection = try XCTUnwrap(with).client().request("GET", "/users?size=20")
        XCTAssertTrue((collection.object["reason"] as? String ?? "").hasSuffix(
            "users/index is there: its name leaves the query out, which is served without --files-with-query (docs/files.md#query-strings)"),
            collection.text)
        // Neither when nothing of either name is there.
        XCTAssertFalse((try XCTUnwrap(with).client().request("GET", "/none?x=1").object["reason"] as? String ?? "").contains("is there"))
    }

    /// Regression (tester finding tester40a-F9, the finding's layout): a recording made in proxy
    /// mode, `127.0.0.1/p/echo`, asked in origin form (the app pointed at Catbird, redirect
    /// style) or for another host, got a 404 naming neither the file nor why; so did a recording
    /// without a host directory asked through the proxy. Each reason now names the file, how it
    /// was filed and how to reach it, and the request it names is served.
    func testA404NamesARecordingFiledInTheOtherLayout() throws {
        // `api/q/r`: a directory whose name is no host is not looked into.
        // `v1.2/users`, `api.v2/items`: fixture folders named for a version are no host's (tester56a-F4).
        let directory = try Self.mocksDirectory([
            "127.0.0.1/p/echo": "echo\n", "v1/users": "users\n", "api/q/r": "q\n", "v1.2/accounts": "u\n", "api.v2/items": "i\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let base = "http://127.0.0.1:\(server.port)"
        let reason = { (arguments: [String]) throws -> String in
            let answer = try CurlClient.run(arguments)
            XCTAssertEqual(answer.status, 404, "\(arguments)")
            return answer.object["reason"] as? String ?? ""
        }
        XCTAssertTrue(try reason(["\(base)/p/echo"]).hasSuffix(
            "no file mock in \(root) (tried p/echo); 127.0.0.1/p/echo is there: a recording made in proxy mode, filed under its host; "
                + "send the request through Catbird as a proxy (absolute form, http://127.0.0.1/…), or move the file up out of 127.0.0.1/ "
                + "(docs/files.md#request-to-file)"))
        XCTAssertEqual(try CurlClient.run(["--proxy", base, "http://127.0.0.1/p/echo"]).text, "echo\n", "the way it names serves it")
        XCTAssertTrue(try reason(["--proxy", base, "http://api.other.test/p/echo"]).hasSuffix(
            "no file mock in \(root) (tried api.other.test/p/echo); 127.0.0.1/p/echo is there: a recording of host 127.0.0.1, "
                + "not api.other.test; ask for http://127.0.0.1/p/echo, or copy it into api.other.test/ (docs/files.md#request-to-file)"))
        XCTAssertTrue(try reason(["--proxy", base, "http://api.example.com/v1/users"]).hasSuffix(
            "no file mock in \(root) (tried api.example.com/v1/users); v1/users is there: a recording filed without a host directory "
                + "(redirect mode, or origin-form requests); point the app's base URL at Catbird instead of using it as a proxy, "
                + "or move the file into api.example.com/ (docs/files.md#request-to-file)"))
        XCTAssertEqual(try CurlClient.run(["\(base)/v1/users"]).text, "users\n")
        XCTAssertTrue(try reason(["\(base)/q/r"]).hasSuffix("(tried q/r)"), "api/ is no host's directory")
        // Regression (tester finding tester56a-F4): `v1.2/users is there: a recording made in proxy
        // mode, filed under its host; send the request through Catbird as a proxy …`.
        XCTAssertTrue(try reason(["\(base)/accounts"]).hasSuffix("(tried accounts)"), "v1.2/ is no host's directory")
        XCTAssertTrue(try reason(["\(base)/items"]).hasSuffix("(tried items)"), "api.v2/ is no host's directory")
        XCTAssertTrue(try reason(["\(base)/p/none"]).hasSuffix("(tried p/none)"))
    }

    /// Regression (tester finding tester42a-F10, the finding's layout): `mocks/docs/index.html`;
    /// `GET /docs` got "docs is a directory with no index file in it", though `Accept: text/html`
    /// serves that index for `/docs`. The reason names the index and how to ask for it.
    func testADirectoryWhoseIndexHasAnExtensionSaysHowToAskForIt() throws {
        let directory = try Self.mocksDirectory(["docs/index.html": "<h1>x</h1>\n"], folders: ["empty"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let base = "http://127.0.0.1:\(server.port)"
        let docs = try CurlClient.run(["\(base)/docs"])
        XCTAssertEqual(docs.status, 404)
        XCTAssertTrue((docs.object["reason"] as? String ?? "").hasSuffix(
            "docs is a directory with no file named exactly index in it; docs/index.html is there: send Accept: text/html, "
                + "or ask for /docs/index.html (docs/files.md#request-to-file)"), "\(docs.object)")
        XCTAssertEqual(try CurlClient.run(["-H", "Accept: text/html", "\(base)/docs"]).text, "<h1>x</h1>\n")
        XCTAssertEqual(try CurlClient.run(["\(base)/docs/index.html"]).text, "<h1>x</h1>\n")
        XCTAssertTrue(
            (try CurlClient.run(["\(base)/empty"]).object["reason"] as? String ?? "").hasSuffix("empty is a directory with no index file in it (docs/files.md#request-to-file)"))
    }

    func testADirectoryIndexBesideATrailingSlashIsNamedByTheTargetThatServesIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-miss-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try Data("<h1>root</h1>\n".utf8).write(to: directory.appendingPathComponent("index.html"))
        try Data("<h1>docs</h1>\n".utf8).write(to: directory.appendingPathComponent("docs/index.html"))
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let base = "http://127.0.0.1:\(server.port)"
        for (target, told, body) in [
            ("/", "/index.html", "<h1>root</h1>\n"), ("/docs/", "/docs/index.html", "<h1>docs</h1>\n"),
            ("/docs/?v=1", "/docs/index.html?v=1", "<h1>docs</h1>\n"),
        ] {
            let miss = try CurlClient.run([base + target])
            XCTAssertEqual(miss.status, 404, target)
            let reason = miss.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.hasSuffix("index.html is beside it: send Accept: text/html, or ask for \(told)"), reason)
            XCTAssertFalse(reason.contains("add .html"), reason)
            let served = try CurlClient.run([base + told])
            XCTAssertEqual(served.status, 200, told)
            XCTAssertEqual(served.text, body, told)
        }
        XCTAssertEqual(try CurlClient.run([base + "/.html"]).status, 404, "what the old hint led to")
    }

    func testASymlinkLeadingOutsideIsNamedInThe404() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-miss-\(UUID().uuidString)")
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-fixtures-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: elsewhere.appendingPathComponent("user.json"))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("leak").path, withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("fixtures").path, withDestinationPath: elsewhere.path)
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let client = try server.client()
        for name in ["leak", "fixtures/user.json"] {
            let refused = try client.request("GET", "/" + name)
            XCTAssertEqual(refused.status, 404, refused.text)
            XCTAssertFalse(refused.text.contains("root:"), "not served")
            XCTAssertTrue(
                (refused.object["reason"] as? String ?? "").hasSuffix(
                    "; no file mock in \(root) (tried \(name)); \(name) is a symlink, or under one, leading outside the mocks "
                        + "directory: not served (docs/files.md#confinement)"),
                refused.text)
        }
        let missing = try client.request("GET", "/none")
        XCTAssertTrue((missing.object["reason"] as? String ?? "").hasSuffix("(tried none)"), missing.text)
    }

    /// Regression (try9a F4): with `--files-with-query`, `/api/list?page=2` recorded with
    /// `Accept: application/json` is `api/list?page=2.json`; replayed with curl's `Accept: */*`
    /// the 404 said only `(tried api/list?page=2)`, with no word of the file beside it.
    func testAQueryNameNamesTheFileBesideItAndTheAcceptThatSelectsIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-miss-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("api"), withIntermediateDirectories: true)
        try Data(#"{"path": "/api/list?page=2"}"#.utf8).write(to: directory.appendingPathComponent("api/list?page=2.json"))
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer {
            $0.mocksDirectory = directory.path
            $0.filesIncludeQuery = true
        }
        let base = "http://127.0.0.1:\(server.port)"
        let miss = try CurlClient.run(["\(base)/api/list?page=2"])
        XCTAssertEqual(miss.status, 404)
        XCTAssertTrue((miss.object["reason"] as? String ?? "").hasSuffix(
            "; no file mock in \(root) (tried api/list?page=2); api/list?page=2.json is beside it: send Accept: application/json "
                + "(the Accept extension follows the query, so .json added to the path does not name it)"), "\(miss.object)")
        // The hint was right: the Accept it names selects the file; the path with .json does not.
        XCTAssertEqual(try CurlClient.run(["-H", "Accept: application/json", "\(base)/api/list?page=2"]).status, 200)
        XCTAssertEqual(try CurlClient.run(["\(base)/api/list.json?page=2"]).status, 404)
    }

    /// Regression (T12-F9, the tester's directory): a name that exists but cannot be served got
    /// a 404 saying only `(tried <name>)`, which reads as "no such file": a symlink to itself
    /// (`ELOOP`), a FIFO, a directory with an extension (`dir.json/index` is served for
    /// `/dir.json/`, not `/dir.json`), a file named in NFD (`e` and U+0301, as macOS names
    /// files) asked for in NFC (`/%C3%A9`). The reason now says why, and the way that works.
    func testANameThatExistsButIsNotServedSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-miss-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("dir.json"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("plain"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: directory.appendingPathComponent("dir.json/index"))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("loop").path, withDestinationPath: "loop")
        XCTAssertEqual(mkfifo(directory.appendingPathComponent("fifo").path, 0o644), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: directory.path + "/e\u{301}", contents: Data("nfd".utf8)))
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer { $0.mocksDirectory = directory.path }
        let client = try server.client()
        let expected = [
            ("/loop", "(tried loop); loop is a symlink loop, or under one (too many levels of symbolic links): not served"),
            ("/fifo", "(tried fifo); fifo is a FIFO, not a regular file: not served"),
            ("/dir.json", "(tried dir.json); dir.json is a directory, and a name with an extension is not looked up as a "
                + "directory's index: end the path with / to ask for dir.json/index"),
            ("/plain", "(tried plain, plain/index); plain is a directory with no index file in it (docs/files.md#request-to-file)"),
            ("/%C3%A9", "(tried \u{E9}); \u{E9} exists as another Unicode normalization, e%CC%81 (NFD): file names are compared "
                + "byte for byte; ask for e%CC%81 or rename the file to %C3%A9 (docs/files.md#request-to-file)"),
        ]
        for (target, ending) in expected {
            let answer = try client.request("GET", target)
            XCTAssertEqual(answer.status, 404, target)
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.hasSuffix("; no file mock in \(root) " + ending), "\(target): \(reason)")
        }
        // The ways the reasons name serve the files.
        XCTAssertEqual(try client.request("GET", "/dir.json/").text, "{}")
        XCTAssertEqual(try client.request("GET", "/e%CC%81").text, "nfd")
        // A name that is simply missing still says only what was tried.
        XCTAssertTrue((try client.request("GET", "/%C3%A0").object["reason"] as? String ?? "").hasSuffix("(tried \u{E0})"))
    }

    /// Regression (tester60b-F1, its directory): fixtures named on macOS, whose file system ignores
    /// case, asked for in another case on Linux got a 404 naming only the names tried. The reason
    /// names the file in its letter case now, in any component, and that name serves it.
    func testAFileInAnotherLetterCaseIsNamed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-case-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("api"), withIntermediateDirectories: true)
        try Data(#"{"books":[]}"#.utf8).write(to: directory.appendingPathComponent("api/books.json"))
        let root = directory.resolvingSymlinksInPath().path
        let server = try TestServer { $0.mocksDirectory = directory.path }
        defer { server.removeFiles() }
        let client = try server.client()
        for target in ["/api/Books.json", "/API/books.json"] {
            let answer = try client.request("GET", target)
            XCTAssertEqual(answer.status, 404, target)
            let reason = answer.object["reason"] as? String ?? ""
            let asked = String(target.dropFirst())
            XCTAssertTrue(
                reason.hasSuffix(
                    "; no file mock in \(root) (tried \(asked)); api/books.json exists, in another letter case: file names are compared "
                        + "case by case (a macOS checkout ignores case, Linux does not); ask for api/books.json or rename the file to "
                        + "\(asked) (docs/files.md#request-to-file)"), "\(target): \(reason)")
        }
        XCTAssertEqual(try client.request("GET", "/api/books.json").text, #"{"books":[]}"#)
        // Nothing in any case: the names tried alone.
        XCTAssertTrue((try client.request("GET", "/api/Films.json").object["reason"] as? String ?? "").hasSuffix("(tried api/Films.json)"))
    }

    /// A new temporary mocks directory holding `files` (relative path: text) and the empty
    /// `folders`, their parents made.
    private static func mocksDirectory(_ files: [String: String], folders: [String] = []) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-files-\(UUID().uuidString)")
        for folder in folders {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (path, text) in files {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        return directory
    }
}
