import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// For `ControlBadInput*Tests`: a fresh server with one known mock (`GET /known` → 200
/// "known") in the default tenant, one keep-alive client, and ``assertRejected(_:_:mentioning:reconnectAfter:file:line:_:)``.
final class ControlBadInputHarness {
    let server: TestServer
    private(set) var client: RawHTTPClient
    /// The known mock's id, as listed right after it was added.
    private(set) var knownID: Int?
    static let knownBodyBase64 = "a25vd24="

    /// A pattern no stored mock has: accepting an action with it would show in the listing.
    static let otherPattern = #"{"method":"GET","url":{"kind":"equal","value":"/other"},"headers":{}}"#

    /// An `update` for ``otherPattern`` with the given response JSON.
    static func update(response: String) -> String {
        #"{"type":"update","pattern":\#(otherPattern),"response":\#(response)}"#
    }

    struct Snapshot {
        /// `GET /catbird/api/mocks` (default tenant), canonical JSON.
        let mocks: String
        /// `GET /catbird/api/tenants`, canonical JSON.
        let tenants: String
        /// `SELECT COUNT(*) FROM requests` through the SQL route.
        let journalCount: Int?
    }

    init(configure: (inout CatbirdServer.Settings) -> Void = { _ in }) throws {
        server = try TestServer(configure: configure)
        client = try server.client()
        let added = try client.json("POST", "/catbird/api/mocks", #"""
            {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/known"},"headers":{}},
             "response":{"status":200,"headers":{"Content-Type":"text/plain"},"body":"\#(Self.knownBodyBase64)"}}
            """#)
        XCTAssertEqual(added.status, 201, "adding the known mock (body: \(added.text))")
        let mocks = try FixtureTestSupport.listMocks(client, tenant: "").object["mocks"] as? [[String: Any]] ?? []
        XCTAssertEqual(mocks.count, 1, "the known mock is listed")
        knownID = JSONNumber.int(mocks.first?["id"])
        XCTAssertNotNil(knownID, "the known mock has an id")
    }

    deinit {
        server.removeFiles()
    }

    /// A new connection (after an answer that may have closed the old one).
    func reconnect() throws {
        client = try server.client()
    }

    /// The journal count comes first: the SQL route flushes the journal writer, so the
    /// listings after it already include every earlier request.
    func snapshot() throws -> Snapshot {
        let journalCount = try FixtureTestSupport.journalCount(client)
        let mocks = try FixtureTestSupport.listMocks(client, tenant: "")
        let tenants = try client.request("GET", "/catbird/api/tenants")
        return Snapshot(
            mocks: "\(mocks.status) \(FixtureTestSupport.canonical(mocks.json))",
            tenants: "\(tenants.status) \(FixtureTestSupport.canonical(tenants.json))",
            journalCount: journalCount)
    }

    /// The default tenant lists exactly the known mock (same id, same body) and it still serves.
    func assertOnlyKnownMock(_ label: String, file: StaticString, line: UInt) throws {
        let mocks = try FixtureTestSupport.listMocks(client, tenant: "").object["mocks"] as? [[String: Any]] ?? []
        XCTAssertEqual(mocks.count, 1, "\(label): exactly the known mock must be listed", file: file, line: line)
        XCTAssertEqual(JSONNumber.int(mocks.first?["id"]), knownID, "\(label): known mock id", file: file, line: line)
        let response = mocks.first?["response"] as? [String: Any]
        XCTAssertEqual(response?["body"] as? String, Self.knownBodyBase64, "\(label): known mock body", file: file, line: line)
        let served = try client.request("GET", "/known")
        XCTAssertEqual(served.status, 200, "\(label): known mock still serves", file: file, line: line)
        XCTAssertEqual(served.text, "known", "\(label): known mock body served", file: file, line: line)
    }

    /// Sends one bad request and checks: `status`, the JSON error shape and Content-Type, a
    /// reason mentioning at least one of `mentioning` (case-insensitive; any non-empty reason
    /// when empty), and that nothing stored changed.
    func assertRejected(
        _ label: String, _ status: Int, mentioning: [String], reconnectAfter: Bool = false,
        file: StaticString = #filePath, line: UInt = #line,
        _ send: (RawHTTPClient) throws -> RawResponse
    ) throws {
        let before = try snapshot()
        XCTAssertNotNil(before.journalCount, "\(label): journal count before", file: file, line: line)
        let response: RawResponse
        do {
            response = try send(client)
        } catch {
            XCTFail("\(label): no answer: \(error)", file: file, line: line)
            try reconnect()
            return
        }
        XCTAssertEqual(response.status, status, "\(label): status (body: \(response.text))", file: file, line: line)
        XCTAssertEqual(
            response.header("Content-Type"), "application/json; charset=utf-8", "\(label): Content-Type", file: file, line: line)
        let object = response.object
        XCTAssertEqual(Set(object.keys), ["error", "reason"], "\(label): error body keys (body: \(response.text))", file: file, line: line)
        XCTAssertEqual(FixtureTestSupport.canonical(object["error"]), "true", "\(label): \"error\" must be true", file: file, line: line)
        let reason = object["reason"] as? String ?? ""
        XCTAssertFalse(reason.trimmingCharacters(in: .whitespaces).isEmpty, "\(label): reason must not be empty", file: file, line: line)
        if !mentioning.isEmpty {
            XCTAssertTrue(
                mentioning.contains { reason.range(of: $0, options: .caseInsensitive) != nil },
                "\(label): reason \(reason.debugDescription) should mention one of \(mentioning)", file: file, line: line)
        }

        if reconnectAfter { try reconnect() }
        let after = try snapshot()
        XCTAssertEqual(after.mocks, before.mocks, "\(label): stored mocks changed", file: file, line: line)
        XCTAssertEqual(after.tenants, before.tenants, "\(label): tenants changed", file: file, line: line)
        XCTAssertEqual(after.journalCount, before.journalCount, "\(label): journal row count changed", file: file, line: line)
        try assertOnlyKnownMock(label, file: file, line: line)
    }
}
