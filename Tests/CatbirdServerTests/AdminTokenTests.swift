import CatbirdTestSupport
import Foundation
import XCTest

/// `--admin-token` (docs/operations.md#admin-token): with a token, the cross-tenant routes need
/// `Authorization: Bearer <token>`, a request without a parallel id is an ordinary default-tenant
/// client, and the token never reaches the journal.
final class AdminTokenTests: XCTestCase {
    private let token = "s3cret-Token_0123456789"
    private var bearer: [(String, String)] { [("Authorization", "Bearer \(token)")] }

    private func tenantIDs(_ answer: RawResponse) -> [String]? {
        (answer.object["tenants"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
    }

    func testWithATokenOnlyTheBearerListsAndDropsOtherTenants() throws {
        let server = try TestServer { $0.adminToken = self.token }
        defer { server.removeFiles() }
        let client = try server.client()
        for tenant in ["alpha", "beta"] { try E2E.addMock(client, tenant: tenant, url: "/x", body: tenant) }

        // No header, no token: an ordinary client of the default tenant.
        XCTAssertEqual(tenantIDs(try client.request("GET", "/catbird/api/tenants")), [""])
        for (method, target) in [("DELETE", "/catbird/api/tenants"), ("DELETE", "/catbird/api/tenants/alpha"), ("DELETE", "/catbird/api/mocks")] {
            let refused = try client.request(method, target)
            E2E.assertError(refused, status: 401, reasonContains: "Authorization: Bearer")
            XCTAssertEqual(refused.header("WWW-Authenticate"), "Bearer realm=\"catbird\"", "\(method) \(target)")
        }
        // A wrong token, a token with a different length, another scheme: the same.
        for value in ["Bearer s3cret-Token_0123456788", "Bearer \(token)x", "Bearer s3cret", "Basic \(token)", "Bearer", "Bearer "] {
            let refused = try client.request("DELETE", "/catbird/api/tenants/alpha", headers: [("Authorization", value)])
            E2E.assertError(refused, status: 401, reasonContains: "admin")
            XCTAssertEqual(tenantIDs(try client.request("GET", "/catbird/api/tenants", headers: [("Authorization", value)])), [""], value)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: "alpha").count, 1, "nothing was dropped")

        // The token: everything, scheme in any case, with or without a parallel id.
        XCTAssertEqual(tenantIDs(try client.request("GET", "/catbird/api/tenants", headers: bearer)), ["", "alpha", "beta"])
        XCTAssertEqual(
            tenantIDs(try client.request("GET", "/catbird/api/tenants", headers: bearer + E2E.tenantHeader("beta"))),
            ["", "alpha", "beta"])
        let dropped = try client.request("DELETE", "/catbird/api/tenants/alpha", headers: [("authorization", "bEaReR \(token)")])
        XCTAssertEqual(dropped.status, 204, dropped.text)
        XCTAssertEqual(tenantIDs(try client.request("GET", "/catbird/api/tenants", headers: bearer)), ["", "beta"])
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants?all=true", headers: bearer).status, 204)
        XCTAssertEqual(tenantIDs(try client.request("GET", "/catbird/api/tenants", headers: bearer)), [""])
    }

    func testWithATokenAShardStillDropsItselfAndTheDefaultTenantStillWorks() throws {
        let server = try TestServer { $0.adminToken = self.token }
        defer { server.removeFiles() }
        let client = try server.client()
        let shared = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/shared", body: Array("default".utf8)), headers: bearer)
        XCTAssertEqual(shared.status, 201, "the shared fixtures are the admin's to set: \(shared.text)")
        try E2E.addMock(client, tenant: "gamma", url: "/own", body: "gamma")
        XCTAssertEqual(try client.request("GET", "/shared").text, "default", "the default tenant's mocks answer without a token")
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 1)
        E2E.assertError(
            try client.request("DELETE", "/catbird/api/tenants/delta", headers: E2E.tenantHeader("gamma")), status: 401)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/gamma", headers: E2E.tenantHeader("gamma")).status, 204)
        XCTAssertEqual(try E2E.mocks(client, tenant: "gamma").count, 0)
    }

    /// Tester finding try9b F5, the exact calls: with `--admin-token TOPSECRET123`, a client
    /// without a parallel id and without the token added a catch-all to the default tenant's
    /// mocks (every shard's fallbacks: shard-5's 404s became 200 "hijacked") and removed them
    /// all with `removeAll`. Now each is a 401 and the fixtures stay.
    func testWithATokenTheSharedFixturesAreTheAdminsToChange() throws {
        let server = try TestServer { $0.adminToken = "TOPSECRET123" }
        defer { server.removeFiles() }
        let client = try server.client()
        let admin = [("Authorization", "Bearer TOPSECRET123")]
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/fixture", body: Array("shared".utf8)), headers: admin).status, 201)
        let hijack = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"*"},"headers":{}},"response":{"status":200,"body":"aGlqYWNrZWQ="}}"#)
        E2E.assertError(hijack, status: 401, reasonContains: "changing the default tenant's mocks (the shared fixtures every shard falls back to) is an admin action")
        XCTAssertEqual(hijack.header("WWW-Authenticate"), "Bearer realm=\"catbird\"")
        XCTAssertEqual(try client.request("GET", "/anything", headers: E2E.tenantHeader("shard-5")).status, 404, "not hijacked")
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#), status: 401)
        E2E.assertError(
            try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/fixture", body: Array("shared".utf8)).replacingOccurrences(of: "\"update\"", with: "\"remove\"")),
            status: 401)
        XCTAssertEqual(try client.request("GET", "/fixture", headers: E2E.tenantHeader("shard-5")).text, "shared", "the fixture stays")
        // A shard changes its own mocks without the token, as before.
        try E2E.addMock(client, tenant: "shard-5", url: "/own", body: "own")
        try E2E.removeAll(client, tenant: "shard-5")
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: admin).status, 204)
        XCTAssertEqual(try client.request("GET", "/fixture", headers: E2E.tenantHeader("shard-5")).status, 404, "the admin removed it")
    }

    /// Tester finding T14B-F9, the exact calls: with `--admin-token s3cr3t`, a request without a
    /// parallel id was journaled in the default tenant, and `DELETE /catbird/api/requests` without
    /// the token and without a parallel id deleted it (`{"deleted":14}`) while the same caller's
    /// `removeAll` was a 401. Clearing the default journal is now the admin's, as changing its
    /// mocks is; reading it and a shard clearing its own journal need no token.
    func testWithATokenTheDefaultJournalIsTheAdminsToClear() throws {
        let server = try TestServer { $0.adminToken = "s3cr3t" }
        defer { server.removeFiles() }
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/lost-parallel-id").status, 404)
        _ = try client.request("GET", "/own", headers: E2E.tenantHeader("shard-1"))
        let refused = try client.request("DELETE", "/catbird/api/requests")
        E2E.assertError(
            refused, status: 401,
            reasonContains: "clearing the default tenant's journal (the requests of every client without a parallel id) is an admin action "
                + "on a server with an admin token: send Authorization: Bearer <admin token>, or send your X-Catbird-Parallel-Id to "
                + "clear your own tenant's journal (docs/tenancy.md#default-tenant); this request sent no Authorization field")
        XCTAssertEqual(refused.header("WWW-Authenticate"), "Bearer realm=\"catbird\"")
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#), status: 401)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).map { $0["url"] as? String }, ["/lost-parallel-id"], "kept, and readable without the token")
        let own = try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("shard-1"))
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertEqual(JSONNumber.int(own.object["deleted"]), 1, own.text)
        let admin = try client.request("DELETE", "/catbird/api/requests", headers: [("Authorization", "Bearer s3cr3t")])
        XCTAssertEqual(admin.status, 200, admin.text)
        XCTAssertEqual(JSONNumber.int(admin.object["deleted"]), 1, admin.text)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0)
    }

    /// try10a F14: a missing token, one without `Bearer ` and a wrong one got the same 401,
    /// word for word; each now says which it was (never the token itself).
    func testThe401SaysWhatWasWrongWithTheCredentials() throws {
        let server = try TestServer { $0.adminToken = "s3cret" }
        defer { server.removeFiles() }
        let client = try server.client()
        let cases: [([(String, String)], String)] = [
            ([], "this request sent no Authorization field"),
            ([("Authorization", "s3cret")], "this request's Authorization is not of the form 'Bearer <token>'"),
            ([("Authorization", "Bearer wrong")], "the Bearer token this request sent is not this server's admin token"),
        ]
        for (headers, said) in cases {
            let change = try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: headers)
            E2E.assertError(change, status: 401, reasonContains: said)
            XCTAssertFalse(change.text.contains("s3cret\""), change.text)
            let drop = try client.request("DELETE", "/catbird/api/tenants/other", headers: headers + E2E.tenantHeader("mine"))
            E2E.assertError(drop, status: 401, reasonContains: said)
            let all = try client.request("DELETE", "/catbird/api/tenants?all=true", headers: headers)
            E2E.assertError(all, status: 401, reasonContains: said)
        }
    }

    func testWithoutATokenARequestWithoutAParallelIDIsTheAdminAsBefore() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "alpha", url: "/x", body: "a")
        XCTAssertEqual(tenantIDs(try client.request("GET", "/catbird/api/tenants")), ["", "alpha"])
        E2E.assertError(
            try client.request("DELETE", "/catbird/api/tenants", headers: E2E.tenantHeader("alpha")), status: 403,
            reasonContains: "admin action")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/alpha").status, 204)
    }

    /// The journal stores request headers as sent (docs/protocol.md#journal); the admin token
    /// alone is replaced, in the row itself, so neither the API nor SQL nor the file shows it.
    func testTheTokenIsNeverJournaled() throws {
        let server = try TestServer { $0.adminToken = self.token }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "alpha", url: "/app", body: "ok")
        _ = try client.request("GET", "/app", headers: E2E.tenantHeader("alpha") + bearer)
        _ = try client.request("GET", "/app", headers: E2E.tenantHeader("alpha") + [("Authorization", "Bearer the-apps-own")])
        _ = try client.request("GET", "/catbird/api/tenants", headers: bearer)

        let entries = try E2E.journal(client, tenant: "alpha")
        XCTAssertEqual(entries.count, 2, "control requests are not journaled")
        let sent = entries.map { (($0["request"] as? [String: Any])?["headers"] as? [String: Any])?["Authorization"] as? String }
        XCTAssertEqual(sent, ["Bearer [redacted]", "Bearer the-apps-own"])
        server.stop()
        let file = try Data(contentsOf: URL(fileURLWithPath: server.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: server.databasePath + "-wal"))) ?? Data())
        XCTAssertNil(file.range(of: Data(token.utf8)), "the token is nowhere in the database file")
    }

    /// Tester finding T14B-F4, the exact calls: with `--admin-token s3cr3t`, only the exact
    /// `Authorization: Bearer s3cr3t` was redacted; these five reached the default tenant's
    /// journal verbatim, which any client reads without the token. The token standing on its own
    /// in any journaled header value is now `[redacted]`; the rest of the value stays.
    func testTheTokenIsRedactedInEveryHeaderValueItAppearsIn() throws {
        let server = try TestServer { $0.adminToken = "s3cr3t" }
        defer { server.removeFiles() }
        let page = try assertJournaled(on: server, [
            ("Proxy-Authorization", "Bearer s3cr3t", "Bearer [redacted]"),
            ("Authorization", "Token s3cr3t", "Token [redacted]"),
            ("Authorization", "Bearer \"s3cr3t\"", "Bearer \"[redacted]\""),
            ("Authorization", "Bearer s3cr3t;", "Bearer [redacted];"),
            ("Authorization", "Bearer s3cr3t, Basic abc", "Bearer [redacted], Basic abc"),
            ("X-Debug", "/admin/s3cr3t?t=s3cr3t and s3cr3", "/admin/[redacted]?t=[redacted] and s3cr3"),
            ("Authorization", "Bearer S3CR3T", "Bearer S3CR3T"),
        ])
        XCTAssertFalse(page.contains("s3cr3t"), page)
        server.stop()
        let file = try Data(contentsOf: URL(fileURLWithPath: server.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: server.databasePath + "-wal"))) ?? Data())
        XCTAssertNil(file.range(of: Data("s3cr3t".utf8)), "the token is nowhere in the database file")
    }

    /// Re-read of T14B-F4's fix: every occurrence of the token was replaced, so with a short
    /// token `Content-Type: application/json` was journaled as `[redacted]lication/json` and a
    /// header pattern on it no longer counted the request. Only the token standing on its own
    /// (not inside a longer word) is redacted.
    func testOnlyTheTokenStandingOnItsOwnIsRedacted() throws {
        let server = try TestServer { $0.adminToken = "app" }
        defer { server.removeFiles() }
        _ = try assertJournaled(on: server, [
            ("Content-Type", "application/json", "application/json"),
            ("X-Env", "app", "[redacted]"),
            ("X-Host", "app.local", "[redacted].local"),
            ("X-Words", "apps happy app", "apps happy [redacted]"),
        ])
        let client = try server.client()
        let count = try client.json(
            "POST", "/catbird/api/requests/count",
            #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{"Content-Type":{"kind":"equal","value":"application/json"}}}}"#)
        XCTAssertEqual(count.object["count"] as? Int, 1, count.text)
    }

    /// Re-read: a request carrying the token that missed a mock with a pattern on that header
    /// field had the token in its 404 (`got "Bearer s3cr3t"`), in the journaled copy of that body
    /// and in its near misses, readable from the default tenant's journal without the token.
    func testANearMissShowsTheTokenRedacted() throws {
        let server = try TestServer { $0.adminToken = "s3cr3t" }
        defer { server.removeFiles() }
        let client = try server.client()
        let update = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{"Authorization":{"kind":"equal","value":"Bearer other"}}},"response":{"status":200}}"#,
            headers: [("Authorization", "Bearer s3cr3t")])
        XCTAssertEqual(update.status, 201, update.text)
        let missed = try client.request("GET", "/x", headers: [("Authorization", "Bearer s3cr3t")])
        XCTAssertEqual(missed.status, 404, missed.text)
        XCTAssertTrue(missed.text.contains(#"got \"Bearer [redacted]\""#), missed.text)
        XCTAssertFalse(missed.text.contains("s3cr3t"), missed.text)
        let page = try client.request("GET", "/catbird/api/requests?order=newest&limit=1")
        XCTAssertTrue(page.text.contains("Bearer [redacted]"), page.text)
        XCTAssertFalse(page.text.contains("s3cr3t"), page.text)
    }

    /// Tester finding tester65b-F1, its exact input: with `--admin-token s3cret`, a mock on
    /// `X-Env: equal "s3cret"` answered `GET /env`, then count, find and wait with that pattern
    /// said 0, nothing and a 408 without a word: the journal keeps the value as `[redacted]`.
    /// They still read the journal as kept (the token never leaves it), and now say so; the
    /// pattern on `[redacted]` they name counts the request.
    func testAJournalPatternNamingTheTokenSaysTheJournalKeepsItRedacted() throws {
        let server = try TestServer { $0.adminToken = "s3cret" }
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = E2E.tenantHeader("red1")
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/env"},"headers":{"X-Env":{"kind":"equal","value":"s3cret"}}}"#
        let update = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200,"body":"b2s="}}"#, headers: tenant)
        XCTAssertEqual(update.status, 201, update.text)
        XCTAssertEqual(try client.request("GET", "/env", headers: tenant + [("X-Env", "s3cret")]).text, "ok")
        let warning = #"header pattern X-Env names the admin token, which the journal keeps as [redacted] wherever a request sent it (docs/operations.md#admin-token): this pattern matches such a request only where it names [redacted] in the token's place (X-Env: equal "[redacted]")"#
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(count.status, 200, count.text)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 0, count.text)
        XCTAssertEqual(count.object["warnings"] as? [String], [warning], count.text)
        let find = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual((find.object["requests"] as? [Any])?.count, 0, find.text)
        XCTAssertEqual(find.object["warnings"] as? [String], [warning], find.text)
        let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"timeout":0,"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(wait.status, 408, wait.text)
        XCTAssertTrue((wait.object["reason"] as? String ?? "").contains("; " + warning), wait.text)
        let redacted = pattern.replacingOccurrences(of: "s3cret", with: "[redacted]")
        XCTAssertEqual(try E2E.count(client, tenant: "red1", patternJSON: redacted), 1)
        // A pattern without the token: no warning.
        let plain = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(redacted)}"#, headers: tenant)
        XCTAssertNil(plain.object["warnings"], plain.text)
    }

    /// Tester finding tester68a-F3, its exact input: the admin's default-tenant mock with a
    /// header pattern `X-Env: equal "<token>"` is shown as stored in every shard's 404 near
    /// misses and in the default tenant's mock listing, readable without the token, so the token
    /// went to every shard without a word. The `update` now says so (and logs it, without the token).
    func testAMockPatternNamingTheTokenWarnsThatItIsShown() throws {
        let token = "Secr3tToken-abcdefgh1234"
        let server = try TestServer { $0.adminToken = token }
        defer { server.removeFiles() }
        let client = try server.client()
        let update = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{"X-Env":{"kind":"equal","value":"\#(token)"}}},"response":{"status":200}}"#,
            headers: [("Authorization", "bearer \(token)")])
        XCTAssertEqual(update.status, 201, update.text)
        let warnings = update.object["warnings"] as? [String] ?? []
        XCTAssertEqual(warnings.count, 1, update.text)
        XCTAssertTrue(warnings.first?.hasPrefix("header pattern X-Env names the admin token: a mock's pattern is shown as stored in its tenant's 404 near misses") == true, update.text)
        XCTAssertFalse(update.text.contains(token), update.text)
        let plain = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/y"},"headers":{"X-Env":{"kind":"equal","value":"prod"}}},"response":{"status":200}}"#,
            headers: E2E.tenantHeader("r1"))
        XCTAssertEqual(plain.status, 201, plain.text)
        XCTAssertEqual(plain.body, [], plain.text)
    }

    /// Sends `GET /x` (a 404) once per field of `sent`, each alone, reads the default tenant's
    /// journal without the token, and asserts each field was journaled as its `journaled`
    /// value, in order. Returns the journal page's text.
    private func assertJournaled(
        on server: TestServer, _ sent: [(name: String, value: String, journaled: String)], line: UInt = #line
    ) throws -> String {
        let client = try server.client()
        for (name, value, _) in sent {
            XCTAssertEqual(try client.request("GET", "/x", headers: [(name, value)]).status, 404, value, line: line)
        }
        let page = try client.request("GET", "/catbird/api/requests?order=oldest&limit=\(sent.count + 1)")
        XCTAssertEqual(page.status, 200, "readable without the token: \(page.text)", line: line)
        let entries = page.object["requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, sent.count, page.text, line: line)
        for (entry, (name, value, journaled)) in zip(entries, sent) {
            let headers = (entry["request"] as? [String: Any])?["headers"] as? [String: Any]
            XCTAssertEqual(headers?[name] as? String, journaled, value, line: line)
        }
        return page.text
    }

    /// Starts `catbird` with `arguments` and `environment`, waits until it says it listens (or
    /// exits), stops it with SIGTERM and returns what it printed on stderr.
    private func startupLog(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = try BuiltProducts.executable(named: "catbird")
        process.arguments = ["serve", "--port", "0", "--db", directory.appendingPathComponent("db.sqlite").path] + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CATBIRD_") }
            .merging(environment) { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var output = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning, !String(decoding: output, as: UTF8.self).contains("listening on") {
            output += stderr.fileHandleForReading.availableData
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        output += stderr.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: output, as: UTF8.self)
    }

    /// try6a F6: `--cors` gave no warning without `--admin-token`. The control routes are now
    /// closed to other origins under `--cors` alone (no warning needed); listing origins without a
    /// token, or `*`, warns at start-up.
    func testCORSOriginsWithoutATokenWarn() throws {
        let listed = try startupLog(["--cors-origin", "http://localhost:3000"])
        XCTAssertTrue(listed.contains(
            "[warning] --cors-origin without --admin-token: pages of http://localhost:3000 can use the cross-tenant routes"), listed)
        let any = try startupLog([], environment: ["CATBIRD_CORS_ORIGINS": "*", "CATBIRD_ADMIN_TOKEN": token])
        XCTAssertTrue(any.contains("[warning] --cors-origin '*': a page of any site a browser here opens can call the control routes"), any)
        XCTAssertFalse(any.contains("drop every tenant"), "the token keeps the cross-tenant routes closed: \(any)")
        for quiet in [["--cors"], ["--cors-origin", "http://localhost:3000", "--admin-token", token]] {
            let log = try startupLog(quiet)
            XCTAssertTrue(log.contains("listening on"), log)
            XCTAssertFalse(log.contains("--cors"), "\(quiet): \(log)")
        }
    }

    func testListeningBeyondLoopbackWithoutATokenWarns() throws {
        let open = try startupLog(["--host", "0.0.0.0"])
        XCTAssertTrue(open.contains("listening on http://127.0.0.1:"), open)
        XCTAssertTrue(open.contains("[warning] listening on 0.0.0.0 without an admin token"), open)

        let guarded = try startupLog(["--host", "0.0.0.0"], environment: ["CATBIRD_ADMIN_TOKEN": token])
        XCTAssertTrue(guarded.contains("listening on http://127.0.0.1:"), guarded)
        XCTAssertFalse(guarded.contains("without an admin token"), guarded)
        XCTAssertFalse(guarded.contains(token), "the token is never logged: \(guarded)")

        // Tester finding tester50c-F6, the exact spellings: the URL printed was the wildcard itself.
        for spelling in ["0", "0x0", "000.000.000.000"] {
            let zero = try startupLog(["--host", spelling], environment: ["CATBIRD_ADMIN_TOKEN": token])
            XCTAssertTrue(zero.contains("listening on http://127.0.0.1:"), "\(spelling): \(zero)")
        }
        let zeros = try startupLog(["--host", "0:0:0:0:0:0:0:0"], environment: ["CATBIRD_ADMIN_TOKEN": token])
        XCTAssertFalse(zeros.contains("listening on http://[::]:"), zeros)

        let loopback = try startupLog(["--host", "127.0.0.1"])
        XCTAssertTrue(loopback.contains("listening on http://127.0.0.1:"), loopback)
        XCTAssertFalse(loopback.contains("without an admin token"), loopback)

        // Tester finding tester50c-F11: `--host 0.0.0.0 --proxy` made an open proxy without a word.
        let proxy = try startupLog(["--host", "0.0.0.0", "--proxy"], environment: ["CATBIRD_ADMIN_TOKEN": token])
        XCTAssertTrue(proxy.contains("[warning] --proxy on 0.0.0.0: anyone who can reach the port can send requests through"), proxy)
        XCTAssertFalse(try startupLog(["--proxy"]).contains("open proxy"), "on loopback")

        let empty = try startupLog(["--admin-token", ""])
        XCTAssertTrue(empty.contains("admin token must be printable ASCII without spaces, and not empty"), empty)
    }

    /// Regression (tester finding tester30a-F10, its tokens `json` and `x`): a short token was
    /// accepted without a word, and being redacted wherever it stands alone it rewrote the
    /// app's `Content-Type: application/json` to `application/[redacted]` in the journal and
    /// upstream. Start-up now warns for a token under 16 characters, without quoting it; a
    /// long one gets no warning.
    func testAShortAdminTokenWarnsWithoutQuotingIt() throws {
        for (short, length) in [("json", "4 characters"), ("x", "1 character"), ("Zq9-w", "5 characters")] {
            let log = try startupLog(["--admin-token", short])
            XCTAssertTrue(log.contains("listening on"), log)
            XCTAssertTrue(log.contains(
                "[warning] the admin token is \(length) long: it is redacted wherever it stands alone in a header value, in the "
                    + "journal and upstream, so a short or word-like token rewrites the app's own values"), log)
        }
        XCTAssertFalse(try startupLog(["--admin-token", "Zq9-w"]).contains("Zq9-w"), "the token is never logged")
        let long = try startupLog(["--admin-token", String(repeating: "k", count: 16)])
        XCTAssertTrue(long.contains("listening on"), long)
        XCTAssertFalse(long.contains("admin token is"), long)
    }

    func testAnEmptyAdminTokenIsRefused() throws {
        let empty = try startupLog(["--admin-token", ""])
        XCTAssertTrue(empty.contains("admin token must be printable ASCII without spaces, and not empty"), empty)
    }
}
