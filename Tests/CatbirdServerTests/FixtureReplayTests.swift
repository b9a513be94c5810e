import CatbirdTestSupport
import Foundation
import XCTest

/// Replays every Catbird 0.11 client capture in `shared/fixtures/catbird-client-0.11/` byte for
/// byte against a fresh server, then sends the case's app requests and checks each answer
/// against `cases.json` (`expect`, never `catbird011Expect`), and finally checks the stored
/// mocks through `GET /catbird/api/mocks`.
///
/// One test method per case id, all calling ``replay(caseID:)``; ``testEveryCaptureHasACaseAndATest``
/// fails when a capture or case is added without a method here.
final class FixtureReplayTests: XCTestCase {
    /// The case ids that have a `testCase_<id>` method below.
    private static let testedCaseIDs = [
        "a", "b", "c1", "c2", "d", "e", "f", "g1", "g2", "h1", "h2", "i1", "i2", "j",
        "k1", "k2", "k3", "k4", "k5", "k6", "l",
    ]

    /// One mock expected in a tenant's listing after a case: the case whose `update` action
    /// it came from (pattern and response compared with that action), the remaining limit
    /// (nil = unlimited) and the number of responses it has served.
    private struct StoredMock: Sendable {
        let from: String
        let remainingLimit: Int?
        let hits: Int

        init(_ from: String, limit remainingLimit: Int? = nil, hits: Int) {
            self.from = from
            self.remainingLimit = remainingLimit
            self.hits = hits
        }
    }

    /// Each case's tenants (`""` = default tenant) and their mocks in match order once all of
    /// its app requests were answered. Derived by hand from the actions and docs/matching.md:
    /// limits count down per served response, `update` with an equal pattern replaces in place,
    /// `remove`/`removeAll` touch only the caller's tenant.
    private static let storedAfter: [String: [String: [StoredMock]]] = [
        "a": ["": [StoredMock("a", hits: 2)]],
        "b": ["": []],
        "c1": ["": [StoredMock("c1", hits: 5)]],
        "c2": ["": [StoredMock("c2", hits: 2)]],
        "d": ["": [StoredMock("d", hits: 1)]],
        "e": ["": [StoredMock("e", hits: 1)]],
        "f": ["": [StoredMock("f", hits: 4)]],
        "g1": ["": [], "shard-1": [], "shard-2": [], "Shard-1": []],
        "g2": ["": [], "shard-1": [StoredMock("g1", limit: 1, hits: 1)], "shard-2": [StoredMock("g2", limit: 1, hits: 1)]],
        "h1": ["": [], "shard-2": [StoredMock("g2", limit: 1, hits: 1)]],
        "h2": ["": [], "shard-1": [], "shard-2": [StoredMock("g2", limit: 1, hits: 1)]],
        "i1": ["": [], "shard-1": [StoredMock("g1", limit: 1, hits: 1)], "shard-2": [StoredMock("g2", limit: 1, hits: 1)]],
        "i2": ["": [StoredMock("a", hits: 2)], "shard-1": [], "shard-2": [StoredMock("g2", limit: 1, hits: 1)]],
        "j": ["": [StoredMock("j", hits: 1)]],
        "k1": ["": [StoredMock("k1", hits: 2)]],
        "k2": ["": [StoredMock("k2", hits: 1)]],
        "k3": ["": [StoredMock("k3", hits: 1)]],
        "k4": ["": [StoredMock("k3", hits: 1), StoredMock("k4", hits: 1)]],
        "k5": ["": [StoredMock("k5", hits: 1), StoredMock("k4", hits: 1)]],
        "k6": ["": []],
        "l": ["": [StoredMock("l", hits: 2)]],
    ]

    // MARK: - Coverage of the fixture folder

    func testEveryCaptureHasACaseAndATest() throws {
        let cases = try Fixtures.cases()
        let files = try Fixtures.httpFiles()
        XCTAssertEqual(cases.count, files.count, "cases.json must have exactly one case per .http file")
        let caseFiles = cases.compactMap { $0["file"] as? String }
        XCTAssertEqual(caseFiles.sorted(), files, "the cases' files must be exactly the .http files")
        let ids = cases.compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, cases.count, "every case needs an id")
        XCTAssertEqual(Set(ids).count, ids.count, "case ids must be unique")
        XCTAssertEqual(ids.sorted(), Self.testedCaseIDs.sorted(), "every case needs its own testCase_<id> method")
        XCTAssertEqual(Set(Self.storedAfter.keys), Set(ids), "every case needs its stored-mocks expectation")
        for fixtureCase in cases {
            let id = fixtureCase["id"] as? String ?? "?"
            guard let file = fixtureCase["file"] as? String else { continue }
            let capture = try Fixtures.request(named: file)
            let request = fixtureCase["request"] as? [String: Any] ?? [:]
            XCTAssertEqual(capture.header("Content-Length"), String(capture.body.count), "[case \(id)] \(file): Content-Length")
            XCTAssertEqual(SHA256.hex(capture.body), request["bodySha256"] as? String, "[case \(id)] \(file): body sha256")
            for name in fixtureCase["sendFirst"] as? [String] ?? [] {
                XCTAssertTrue(files.contains(name), "[case \(id)] sendFirst names a missing file \(name)")
            }
        }
    }

    // MARK: - One test per case

    func testCase_a() throws { try replay(caseID: "a") }
    func testCase_b() throws { try replay(caseID: "b") }
    func testCase_c1() throws { try replay(caseID: "c1") }
    func testCase_c2() throws { try replay(caseID: "c2") }
    func testCase_d() throws { try replay(caseID: "d") }
    func testCase_e() throws { try replay(caseID: "e") }
    func testCase_f() throws { try replay(caseID: "f") }
    func testCase_g1() throws { try replay(caseID: "g1") }
    func testCase_g2() throws { try replay(caseID: "g2") }
    func testCase_h1() throws { try replay(caseID: "h1") }
    func testCase_h2() throws { try replay(caseID: "h2") }
    func testCase_i1() throws { try replay(caseID: "i1") }
    func testCase_i2() throws { try replay(caseID: "i2") }
    func testCase_j() throws { try replay(caseID: "j") }
    func testCase_k1() throws { try replay(caseID: "k1") }
    func testCase_k2() throws { try replay(caseID: "k2") }
    func testCase_k3() throws { try replay(caseID: "k3") }
    func testCase_k4() throws { try replay(caseID: "k4") }
    func testCase_k5() throws { try replay(caseID: "k5") }
    func testCase_k6() throws { try replay(caseID: "k6") }
    func testCase_l() throws { try replay(caseID: "l") }

    // MARK: - Replay

    /// Fresh server; `sendFirst` captures then the case's own capture, byte for byte; the app
    /// requests in order; the stored mocks.
    private func replay(caseID: String) throws {
        let cases = try Fixtures.cases()
        let fixtureCase = try XCTUnwrap(cases.first { $0["id"] as? String == caseID }, "[case \(caseID)] not in cases.json")
        let file = try XCTUnwrap(fixtureCase["file"] as? String, "[case \(caseID)] has no file")
        var answerOfFile: [String: Int] = [:]
        for other in cases {
            if let name = other["file"] as? String, let answer = other["serverAnswer"] as? [String: Any],
               let status = JSONNumber.int(answer["status"]) {
                answerOfFile[name] = status
            }
        }

        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()

        for name in fixtureCase["sendFirst"] as? [String] ?? [] {
            let status = try XCTUnwrap(answerOfFile[name], "[case \(caseID)] sendFirst \(name) has no case")
            try sendCapture(name, expecting: status, client, label: "[case \(caseID)] sendFirst \(name)")
        }
        let ownStatus = try XCTUnwrap(answerOfFile[file], "[case \(caseID)] has no serverAnswer.status")
        try sendCapture(file, expecting: ownStatus, client, label: "[case \(caseID)] \(file)")

        let steps = fixtureCase["thenAppRequests"] as? [[String: Any]] ?? []
        for (index, step) in steps.enumerated() {
            try runAppRequest(step, client, caseID: caseID, number: index + 1)
        }

        try checkStoredMocks(caseID: caseID, cases: cases, server: server)
    }

    /// Sends a capture file's bytes unchanged and checks the control answer: the status, and an
    /// empty body.
    private func sendCapture(_ name: String, expecting status: Int, _ client: RawHTTPClient, label: String) throws {
        let bytes = try Data(contentsOf: Fixtures.directory.appendingPathComponent(name))
        try client.send(raw: Array(bytes))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, status, "\(label): control answer status (body: \(response.text))")
        XCTAssertEqual(response.body.count, 0, "\(label): control answer must have an empty body, got \(response.text)")
    }

    /// Sends one `thenAppRequests` entry and checks its `expect`.
    private func runAppRequest(_ step: [String: Any], _ client: RawHTTPClient, caseID: String, number: Int) throws {
        let request = try XCTUnwrap(step["request"] as? [String: Any], "[case \(caseID)] app request #\(number) has no request")
        let expect = try XCTUnwrap(step["expect"] as? [String: Any], "[case \(caseID)] app request #\(number) has no expect")
        let method = try XCTUnwrap(request["method"] as? String)
        let target = try XCTUnwrap(request["target"] as? String)
        let headers = (request["headers"] as? [String: String] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let body = (request["body"] as? String).map { Array($0.utf8) }
        let note = (step["note"] as? String).map { " (\($0))" } ?? ""
        let label = "[case \(caseID)] app request #\(number) \(method) \(target)\(note)"

        let clock = ContinuousClock()
        let start = clock.now
        let response = try client.request(method, target, headers: headers, body: body)
        let elapsed = start.duration(to: clock.now)

        XCTAssertEqual(response.status, JSONNumber.int(expect["status"]), "\(label): status (body: \(response.text.prefix(300)))")
        for (name, value) in expect["headers"] as? [String: String] ?? [:] {
            XCTAssertEqual(response.header(name), value, "\(label): header \(name)")
        }
        let expectedBody = expect["body"] as? [String: Any] ?? [:]
        if let length = JSONNumber.int(expectedBody["length"]) {
            XCTAssertEqual(response.body.count, length, "\(label): body length")
        }
        if let sha256 = expectedBody["sha256"] as? String {
            XCTAssertEqual(SHA256.hex(response.body), sha256, "\(label): body sha256")
        }
        if let utf8 = expectedBody["utf8"] as? String {
            XCTAssertEqual(String(bytes: response.body, encoding: .utf8), utf8, "\(label): body text")
        }
        if let json = expectedBody["json"] as? [String: Any], json["reason"] as? String == "Not Found", response.status == 404 {
            // Catbird 0.11's 404 body; ours keeps its keys, and its reason names the tenant and
            // the closest mock, with the near misses beside it (docs/matching.md#near-misses).
            XCTAssertEqual(response.object["error"] as? Bool, true, "\(label): 404 body error")
            XCTAssertTrue(
                (response.object["reason"] as? String ?? "").hasPrefix("no mock matched \(method) "),
                "\(label): 404 reason (raw: \(response.text.prefix(300)))")
            XCTAssertNotNil(response.object["nearMisses"] as? [Any], "\(label): 404 near misses")
        } else if let json = expectedBody["json"] {
            XCTAssertEqual(
                FixtureTestSupport.canonical(response.json), FixtureTestSupport.canonical(json),
                "\(label): body as JSON (raw: \(response.text.prefix(300)))")
        }
        if let seconds = JSONNumber.double(expect["minDelaySeconds"]) {
            XCTAssertGreaterThanOrEqual(
                elapsed, .milliseconds(Int64(seconds * 1000)), "\(label): answered before its \(seconds) s delay")
        }
    }

    /// `GET /catbird/api/mocks` for each tenant the case touches must list exactly the mocks in
    /// ``storedAfter``, each with the pattern and response of the action that created it.
    private func checkStoredMocks(caseID: String, cases: [[String: Any]], server: TestServer) throws {
        let expectedTenants = try XCTUnwrap(Self.storedAfter[caseID], "[case \(caseID)] has no stored-mocks expectation")
        let client = try server.client()
        for (tenant, expected) in expectedTenants.sorted(by: { $0.key < $1.key }) {
            let label = "[case \(caseID)] mocks of tenant \(tenant.isEmpty ? "<default>" : tenant)"
            let listing = try FixtureTestSupport.listMocks(client, tenant: tenant)
            XCTAssertEqual(listing.status, 200, "\(label): listing status (body: \(listing.text))")
            XCTAssertEqual(listing.object["tenant"] as? String, tenant, "\(label): listed tenant")
            let mocks = listing.object["mocks"] as? [[String: Any]] ?? []
            XCTAssertEqual(
                mocks.count, expected.count,
                "\(label): expected \(expected.map(\.from)), listed \(mocks.map { FixtureTestSupport.canonical($0["pattern"]) })")
            let ids = mocks.compactMap { JSONNumber.int($0["id"]) }
            XCTAssertEqual(Set(ids).count, mocks.count, "\(label): every mock needs a distinct id")
            let positions = mocks.compactMap { JSONNumber.int($0["position"]) }
            XCTAssertEqual(positions, positions.sorted(), "\(label): listed in match order")
            for (index, (mock, want)) in zip(mocks, expected).enumerated() {
                try checkMock(mock, want, cases: cases, label: "\(label) #\(index + 1) (from case \(want.from))")
            }
        }
    }

    private func checkMock(_ mock: [String: Any], _ want: StoredMock, cases: [[String: Any]], label: String) throws {
        let source = try XCTUnwrap(cases.first { $0["id"] as? String == want.from }, "\(label): no case \(want.from)")
        let action = try XCTUnwrap(source["action"] as? [String: Any], "\(label): no action")
        XCTAssertEqual(
            FixtureTestSupport.canonical(mock["pattern"]), FixtureTestSupport.canonical(action["pattern"]), "\(label): pattern")

        let response = mock["response"] as? [String: Any] ?? [:]
        let wantResponse = action["response"] as? [String: Any] ?? [:]
        XCTAssertEqual(JSONNumber.int(response["status"]), JSONNumber.int(wantResponse["status"]), "\(label): status")
        XCTAssertEqual(
            FixtureTestSupport.canonical(response["headers"]), FixtureTestSupport.canonical(wantResponse["headers"]),
            "\(label): response headers")
        XCTAssertEqual(JSONNumber.int(response["delay"]), JSONNumber.int(wantResponse["delay"]), "\(label): delay")

        let body: [UInt8]
        switch response["body"] {
        case nil, is NSNull:
            body = []
        case let base64 as String:
            let data = Data(base64Encoded: base64)
            XCTAssertNotNil(data, "\(label): listed body is not base64: \(base64.prefix(80))")
            body = data.map { [UInt8]($0) } ?? []
        default:
            XCTFail("\(label): listed body is neither base64 text nor null")
            body = []
        }
        let wantBody = wantResponse["body"] as? [String: Any] ?? [:]
        XCTAssertEqual(body.count, JSONNumber.int(wantBody["length"]) ?? 0, "\(label): body length")
        if let sha256 = wantBody["sha256"] as? String {
            XCTAssertEqual(SHA256.hex(body), sha256, "\(label): body sha256")
        }

        XCTAssertEqual(JSONNumber.int(mock["remainingLimit"]), want.remainingLimit, "\(label): remainingLimit")
        XCTAssertEqual(JSONNumber.int(response["limit"]), want.remainingLimit, "\(label): response.limit (remaining)")
        XCTAssertEqual(JSONNumber.int(mock["hits"]), want.hits, "\(label): hits")
    }
}
