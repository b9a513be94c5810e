import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

@testable import CatbirdServer

/// Repeated misses (docs/matching.md#repeated-misses): the same request against unchanged mock
/// tables gets the 404 its worker kept (``NotFoundMemo``), byte for byte the one a fresh
/// computation gives; every change of a table the answer was computed from makes it stale.
/// One keep-alive connection stays on one worker, so its second request finds the first's answer.
final class NotFoundMemoTests: ServerTestCase {
    override func tearDown() {
        NotFoundMemo.isEnabled.store(true, ordering: .relaxed)
        super.tearDown()
    }

    private var reuses: Int { NotFoundMemo.reuses.load(ordering: .relaxed) }

    /// The request's 404 body, asked twice with the memo on (the second reused, as the count
    /// checks), after checking both equal the answer computed afresh with the memo off.
    @discardableResult
    private func miss(
        _ target: String, method: String = "GET", tenant: String?, headers: [(String, String)] = [], body: [UInt8]? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> RawResponse {
        let before = reuses
        let first = try client.request(method, target, headers: E2E.tenantHeader(tenant) + headers, body: body)
        let second = try client.request(method, target, headers: E2E.tenantHeader(tenant) + headers, body: body)
        NotFoundMemo.isEnabled.store(false, ordering: .relaxed)
        let fresh = try client.request(method, target, headers: E2E.tenantHeader(tenant) + headers, body: body)
        NotFoundMemo.isEnabled.store(true, ordering: .relaxed)
        XCTAssertEqual(fresh.status, 404, fresh.text, file: file, line: line)
        XCTAssertEqual(first.text, fresh.text, "first ask of \(method) \(target)", file: file, line: line)
        XCTAssertEqual(second.text, fresh.text, "second ask of \(method) \(target)", file: file, line: line)
        XCTAssertGreaterThan(reuses, before, "the second ask reused the first's answer", file: file, line: line)
        return fresh
    }

    private func nearMissIDs(_ response: RawResponse) -> [Int] {
        (response.object["nearMisses"] as? [[String: Any]] ?? []).compactMap { JSONNumber.int($0["mockId"]) }
    }

    private func lastID(tenant: String?) throws -> Int {
        try XCTUnwrap(JSONNumber.int(try E2E.mocks(client, tenant: tenant).last?["id"]))
    }

    /// Sends a control action: `update` answers 201, `remove` and `removeAll` 204.
    private func control(_ action: String, tenant: String?) throws {
        let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, action.contains(#""type":"update""#) ? 201 : 204, answer.text)
    }

    // MARK: - Random patterns and requests, after every kind of change

    func testReusedAnswersEqualFreshOnesOverRandomPatternsAndRequestsAfterEveryKindOfChange() throws {
        var random = SeededRandom(seed: 2026)
        let tenants: [String?] = ["a", "b", nil]
        let words = ["/api/users", "/api/usres", "/api/users/7", "/r/abc", "/w/1/x", "/feed", "/feeds?page=2"]
        func randomPattern() -> String {
            let method = random.pick(["GET", "GET", "POST"])
            let (kind, url): (String, String) = switch random.below(3) {
            case 0: ("equal", random.pick(words))
            case 1: ("wildcard", random.pick(["/api/users/*", "/w/*/x", "/feed*"]))
            default: ("regexp", random.pick(["^/r/[a-z]+$", "^/api/users/[0-9]+$", "feeds"]))
            }
            var pattern = #"{"method":"\#(method)","url":{"kind":"\#(kind)","value":"\#(url)"}"#
            if random.below(3) == 0 { pattern += #","headers":{"X-Token":{"kind":"equal","value":"\#(random.pick(["abc", "xyz"]))"}}"# }
            if random.below(4) == 0 { pattern += #","body":{"kind":"contains","value":"\#(random.pick(["id", "name"]))"}"# }
            return pattern + "}"
        }
        func update(_ pattern: String, limit: Int? = nil) -> String {
            #"{"type":"update","pattern":\#(pattern),"response":{"status":200\#(limit.map { ",\"limit\":\($0)" } ?? "")}}"#
        }
        var added: [(pattern: String, tenant: String?)] = []
        for _ in 0..<24 {
            let (pattern, tenant) = (randomPattern(), random.pick(tenants))
            try control(update(pattern), tenant: tenant)
            added.append((pattern, tenant))
        }
        // Requests no mock answers: methods and urls no pattern above matches. Fewer than a
        // worker keeps (NotFoundMemo.entriesPerThread), so each one's answer is still kept when a
        // change comes and must not be reused after it.
        let requests: [(method: String, target: String, tenant: String?, headers: [(String, String)], body: [UInt8]?)] =
            (0..<NotFoundMemo.entriesPerThread - 1).map { _ in
                (random.pick(["GET", "POST", "DELETE"]), random.pick(["/api/usr", "/r/ab1", "/w/2/y", "/fed", "/zzz"]),
                 random.pick(tenants + ["c"]), random.below(2) == 0 ? [] : [("X-Token", random.pick(["abc", "abd"]))],
                 random.below(2) == 0 ? nil : Array(random.pick(["{\"id\":1}", "name=x", "nothing"]).utf8))
            }
        func askAll(_ round: String) throws {
            for request in requests {
                let fresh = try miss(request.target, method: request.method, tenant: request.tenant, headers: request.headers, body: request.body)
                XCTAssertEqual(fresh.status, 404, "\(round): \(request.method) \(request.target)")
            }
        }
        let changes: [(String, () throws -> Void)] = [
            ("update", { try self.control(update(randomPattern()), tenant: random.pick(tenants)) }),
            ("replace", {
                let old = random.pick(added)
                try self.control(update(old.pattern), tenant: old.tenant)
            }),
            ("remove", {
                let old = random.pick(added)
                try self.control(#"{"type":"remove","pattern":\#(old.pattern)}"#, tenant: old.tenant)
            }),
            ("limit used up", {
                try self.control(update(#"{"method":"GET","url":{"kind":"equal","value":"/api/userz"}}"#, limit: 1), tenant: "a")
                _ = try self.miss("/api/userx", tenant: "a")
                XCTAssertEqual(try self.client.request("GET", "/api/userz", headers: E2E.tenantHeader("a")).status, 200)
            }),
            ("another tenant's mock", { try self.control(update(randomPattern()), tenant: "other") }),
            ("the default tenant's mock", { try self.control(update(randomPattern()), tenant: nil) }),
            ("removeAll", { try self.control(#"{"type":"removeAll"}"#, tenant: random.pick(tenants)) }),
            ("tenant dropped", { XCTAssertEqual(try self.client.request("DELETE", "/catbird/api/tenants/other").status, 204) }),
        ]
        try askAll("before any change")
        for (name, change) in changes {
            try change()
            try askAll("after \(name)")
        }
    }

    // MARK: - Each change makes a kept answer stale (regression tests)

    func testAMockAddedReplacedOrRemovedChangesTheNextAnswerToTheSameRequest() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/feed", body: "feed")
        let feed = try lastID(tenant: "s1")
        XCTAssertEqual(nearMissIDs(try miss("/api/users", tenant: "s1")), [feed])

        try E2E.addMock(client, tenant: "s1", url: "/api/usrs", body: "closer")
        let closer = try lastID(tenant: "s1")
        XCTAssertEqual(nearMissIDs(try miss("/api/users", tenant: "s1")), [closer, feed], "added")

        try E2E.addMock(client, tenant: "s1", url: "/api/usrs", body: "replaced")
        let replaced = try lastID(tenant: "s1")
        XCTAssertNotEqual(replaced, closer)
        XCTAssertEqual(nearMissIDs(try miss("/api/users", tenant: "s1")), [replaced, feed], "replaced in place: a new id")

        try control(#"{"type":"remove","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/usrs"}}}"#, tenant: "s1")
        XCTAssertEqual(nearMissIDs(try miss("/api/users", tenant: "s1")), [feed], "removed")

        try control(#"{"type":"removeAll"}"#, tenant: "s1")
        let empty = try miss("/api/users", tenant: "s1")
        XCTAssertEqual(nearMissIDs(empty), [], "removeAll")
        XCTAssertTrue((empty.object["reason"] as? String ?? "").hasSuffix("neither it nor the default tenant has mocks"), empty.text)
    }

    func testALimitUsedUpByAHitRemovesItsMockFromTheNextAnswer() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/once", body: "once", limit: 1)
        let once = try lastID(tenant: "s1")
        XCTAssertEqual(nearMissIDs(try miss("/api/onc", tenant: "s1")), [once])
        XCTAssertEqual(try client.request("GET", "/api/once", headers: E2E.tenantHeader("s1")).status, 200)
        XCTAssertEqual(nearMissIDs(try miss("/api/onc", tenant: "s1")), [], "the used-up mock is gone")
    }

    func testTheDefaultTenantsChangeReachesAShardsKeptAnswer() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/feed", body: "feed")
        let feed = try lastID(tenant: "s1")
        XCTAssertEqual(nearMissIDs(try miss("/api/users", tenant: "s1")), [feed])
        try E2E.addMock(client, tenant: nil, url: "/api/user", body: "fallback")
        let fallback = try lastID(tenant: nil)
        XCTAssertEqual(nearMissIDs(try miss("/api/users", tenant: "s1")), [fallback, feed])
    }

    func testAnotherTenantsMockAddedOrDroppedChangesADefaultTenantRequestsMatchingTenants() throws {
        try E2E.addMock(client, tenant: nil, url: "/api/feed", body: "feed")
        XCTAssertNil(try miss("/api/users", tenant: nil).object["matchingTenants"])
        try E2E.addMock(client, tenant: "shard-9", url: "/api/users", body: "users")
        let named = try miss("/api/users", tenant: nil)
        XCTAssertEqual(named.object["matchingTenants"] as? [String], ["shard-9"], named.text)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/shard-9").status, 204)
        XCTAssertNil(try miss("/api/users", tenant: nil).object["matchingTenants"], "the dropped tenant is not named")
    }

    func testAHeaderValueOrBodyAPatternComparesGetsItsOwnAnswer() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/users", headerPatterns: ["X-Token": ("equal", "abc")], body: "users")
        let verdict = { (response: RawResponse) -> [String?] in
            ((response.object["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]] ?? []).map { $0["verdict"] as? String }
        }
        XCTAssertEqual(verdict(try miss("/api/users", method: "POST", tenant: "s1", headers: [("X-Token", "abc")])), ["differs", "match", "match"])
        XCTAssertEqual(verdict(try miss("/api/users", method: "POST", tenant: "s1", headers: [("x-token", "abd")])), ["differs", "match", "differs"])
        XCTAssertEqual(verdict(try miss("/api/users", method: "POST", tenant: "s1")), ["differs", "match", "missing"])

        try control(
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"},"body":{"kind":"contains","value":"id"}},"response":{"status":200}}"#,
            tenant: "s2")
        let bodyVerdict = { (response: RawResponse) -> String? in
            ((response.object["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]])?.last?["verdict"] as? String
        }
        XCTAssertEqual(bodyVerdict(try miss("/b", method: "POST", tenant: "s2", body: Array("{\"id\":1}".utf8))), "match")
        XCTAssertEqual(bodyVerdict(try miss("/b", method: "POST", tenant: "s2", body: Array("{\"name\":1}".utf8))), "differs")
    }

    /// tester38a-F4, the exact requests: after the ASCII `GET /api/Kelvin` with `X-Unit: K` was
    /// kept, the same target and value written with the KELVIN SIGN (U+212A, canonically
    /// equivalent to `K`, other bytes) got the kept answer, whose near miss, reason and
    /// journaled `nearMisses` showed the ASCII bytes the app never sent. Compared as UTF-8
    /// bytes here: Swift's `==` on the texts would call them equal.
    func testATargetOrHeaderValueCanonicallyEquivalentToAKeptOnesGetsItsOwnAnswer() throws {
        try E2E.addMock(client, tenant: "f4-memo", url: "/api/users", headerPatterns: ["X-Unit": ("equal", "celsius")], body: "users")
        let kelvin = "\u{212A}"
        try miss("/api/Kelvin", tenant: "f4-memo", headers: [("X-Unit", "K")])
        func actuals(_ response: RawResponse) -> [String: [UInt8]] {
            let fields = (response.object["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]] ?? []
            var found: [String: [UInt8]] = [:]
            for field in fields { if let name = field["field"] as? String, let actual = field["actual"] as? String { found[name] = Array(actual.utf8) } }
            return found
        }
        for _ in 0..<3 {
            let answer = try client.request("GET", "/api/\(kelvin)elvin", headers: E2E.tenantHeader("f4-memo") + [("X-Unit", kelvin)])
            XCTAssertEqual(answer.status, 404, answer.text)
            let found = actuals(answer)
            XCTAssertEqual(found["url"], Array("/api/\(kelvin)elvin".utf8), "the near miss shows the target sent: \(answer.text)")
            XCTAssertEqual(found.first { $0.key.hasPrefix("header") }?.value, Array(kelvin.utf8), "and the header value sent: \(answer.text)")
            let reason = Array((answer.object["reason"] as? String ?? "").utf8)
            XCTAssertTrue(reason.starts(with: Array("no mock matched GET /api/\(kelvin)elvin".utf8)), "the reason names the target sent: \(answer.text)")
        }
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "f4-memo").last)
        XCTAssertEqual(Array((entry["url"] as? String ?? "").utf8), Array("/api/\(kelvin)elvin".utf8))
        let journaled = ((entry["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]])?
            .first { $0["field"] as? String == "url" }?["actual"] as? String
        XCTAssertEqual(journaled.map { Array($0.utf8) }, Array("/api/\(kelvin)elvin".utf8), "the journaled near miss shows the target sent")

        // The second consequence: a default-tenant request in NFD, which a shard's regexp
        // matches, is told that shard (`matchingTenants`) after its NFC twin's answer was kept.
        try control(
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"regexp","value":"^/docs/cafe\#u{301}$"}},"response":{"status":200}}"#,
            tenant: "mt-shard")
        let nfc = try miss("/docs/caf\u{E9}", tenant: nil)
        XCTAssertNil(nfc.object["matchingTenants"], "the regexp does not match the NFC target: \(nfc.text)")
        let nfd = try client.request("GET", "/docs/cafe\u{301}")
        XCTAssertEqual(nfd.object["matchingTenants"] as? [String], ["mt-shard"], nfd.text)
    }

    // MARK: - A reused answer's sent form

    /// Three asks of one miss, on one connection (one worker), with the memo on; each equal to
    /// the answer computed afresh, head fields included but `Date`. Whether one of them queued
    /// the sent form an earlier reuse made in the same second (``NotFoundMemo/sent(_:date:making:)``).
    private func askThrice(_ target: String, tenant: String) throws -> (last: RawResponse, usedSentForm: Bool) {
        let before = NotFoundMemo.sentFormReuses.load(ordering: .relaxed)
        let asks = try (0..<3).map { _ in try client.request("GET", target, headers: E2E.tenantHeader(tenant)) }
        let usedSentForm = NotFoundMemo.sentFormReuses.load(ordering: .relaxed) > before
        NotFoundMemo.isEnabled.store(false, ordering: .relaxed)
        let fresh = try client.request("GET", target, headers: E2E.tenantHeader(tenant))
        NotFoundMemo.isEnabled.store(true, ordering: .relaxed)
        let head = { (response: RawResponse) in response.headers.filter { $0.name != "Date" }.map { "\($0.name): \($0.value)" } }
        for ask in asks {
            XCTAssertEqual(ask.status, 404, ask.text)
            XCTAssertEqual(ask.text, fresh.text)
            XCTAssertEqual(head(ask), head(fresh))
        }
        return (asks[2], usedSentForm)
    }

    /// A miss asked again within a second is sent from the form its first reuse made; a mock
    /// added in that same second makes the next ask get the new answer (the closer mock named
    /// first), not that kept form, which went stale with its entry.
    func testAReusedAnswersSentFormServesTheSecondsRepeatsAndNotTheAnswerAfterAChange() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/feed", body: "feed")
        let feed = try lastID(tenant: "s1")
        // A second may tick between two asks: up to five tries of three asks.
        var asked = try askThrice("/api/users", tenant: "s1")
        for _ in 0..<4 where !asked.usedSentForm { asked = try askThrice("/api/users", tenant: "s1") }
        XCTAssertTrue(asked.usedSentForm, "the third ask of a second queued the form the second ask made")
        XCTAssertEqual(nearMissIDs(asked.last), [feed])

        // Two misses asked in turn: each ask gets its own answer's form, never the other's.
        NotFoundMemo.isEnabled.store(false, ordering: .relaxed)
        let fresh = try ["/api/users", "/api/fed"].map { try client.request("GET", $0, headers: E2E.tenantHeader("s1")).text }
        NotFoundMemo.isEnabled.store(true, ordering: .relaxed)
        XCTAssertNotEqual(fresh[0], fresh[1])
        let before = NotFoundMemo.sentFormReuses.load(ordering: .relaxed)
        for round in 0..<4 {
            for (index, target) in ["/api/users", "/api/fed"].enumerated() {
                let ask = try client.request("GET", target, headers: E2E.tenantHeader("s1"))
                XCTAssertEqual(ask.text, fresh[index], "round \(round), \(target)")
            }
        }
        XCTAssertGreaterThan(NotFoundMemo.sentFormReuses.load(ordering: .relaxed), before, "kept forms were queued")

        // At once (the kept form is of the current second, or of the one before), a change.
        _ = try client.request("GET", "/api/users", headers: E2E.tenantHeader("s1"))
        try E2E.addMock(client, tenant: "s1", url: "/api/usrs", body: "closer")
        let closer = try lastID(tenant: "s1")
        let after = try client.request("GET", "/api/users", headers: E2E.tenantHeader("s1"))
        XCTAssertEqual(nearMissIDs(after), [closer, feed], after.text)
        let again = try askThrice("/api/users", tenant: "s1")
        XCTAssertEqual(nearMissIDs(again.last), [closer, feed], again.last.text)
    }
}
