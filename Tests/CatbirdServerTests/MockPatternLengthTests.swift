import CatbirdMatching
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// try6a F14: an `update` whose url `wildcard` was `*a` × 500,000 (1 MB) took 524 s of server
/// CPU (160 KB: 6.8 s). A url `equal`/`wildcard` value longer than the 8 KiB request-target
/// limit, or a header one longer than the 28 KiB head, can never match: refused with 400 naming
/// the limit (docs/matching.md#pattern-lengths).
final class MockPatternLengthTests: XCTestCase {
    func testURLAndHeaderValuesLongerThanARequestCanBeAreRefused() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = [("X-Catbird-Parallel-Id", "huge")]

        let huge = String(repeating: "*a", count: 500_000)
        let refused = try client.json(
            "POST", "/catbird/api/mocks",
            E2E.jsonText(["type": "update", "pattern": ["method": "GET", "url": ["kind": "wildcard", "value": huge]], "response": ["status": 200]]),
            headers: tenant)
        E2E.assertError(
            refused, status: 400,
            reasonContains: "the url pattern (wildcard) is 1000000 bytes, longer than the limit of 8192 bytes: it could never match, "
                + "since a longer request-target is refused with 414")
        let equal = try client.json(
            "POST", "/catbird/api/mocks",
            E2E.updateAction(url: "/" + String(repeating: "e", count: 8192), body: Array("x".utf8)), headers: tenant)
        E2E.assertError(equal, status: 400, reasonContains: "the url pattern (equal) is 8193 bytes, longer than the limit of 8192 bytes")
        let header = try client.json(
            "POST", "/catbird/api/mocks",
            E2E.jsonText([
                "type": "update",
                "pattern": ["method": "GET", "url": ["kind": "equal", "value": "/h"], "headers": ["X-Big": ["kind": "wildcard", "value": String(repeating: "*b", count: 14337)]]],
                "response": ["status": 200],
            ]), headers: tenant)
        E2E.assertError(
            header, status: 400, reasonContains: "the pattern of header \"X-Big\" (wildcard) is 28674 bytes, longer than the limit of 28672 bytes")
        // Tester finding T17-F1: a 10 MB method was stored with 201 (it could never match).
        let method = try client.json(
            "POST", "/catbird/api/mocks",
            E2E.jsonText([
                "type": "update", "pattern": ["method": String(repeating: "G", count: 10_485_760), "url": ["kind": "equal", "value": "/h"], "headers": [:]],
                "response": ["status": 200],
            ]), headers: tenant)
        E2E.assertError(
            method, status: 400,
            reasonContains: "the method is 10485760 bytes, longer than the limit of 28672 bytes: it could never match, since the request line")
        XCTAssertEqual(try E2E.mocks(client, tenant: "huge").count, 0, "nothing stored")

        // At the limits: stored, and the longest url wildcard matches a target of the longest length.
        let longest = "/" + String(repeating: "*a", count: 4095) + "z"
        XCTAssertEqual(longest.utf8.count, 8192)
        try E2E.addMock(client, tenant: "huge", url: longest, kind: "wildcard", body: "longest")
        let target = "/" + String(repeating: "a", count: 8190) + "z"
        XCTAssertEqual(try client.request("GET", target, headers: tenant).text, "longest")
        // A long regexp is not bounded: it may be far longer than what it matches.
        let alternatives = (0..<2000).map { "alt\($0)" }.joined(separator: "|")
        try E2E.addMock(client, tenant: "huge", url: "^/(\(alternatives))$", kind: "regexp", body: "regexp")
        XCTAssertEqual(try client.request("GET", "/alt1999", headers: tenant).text, "regexp")
    }
    /// try7b F9: an `update` with 20,000 header patterns took 11 s (100,000: over 300 s), as the
    /// control body's key check copied the set of an object's keys for every key. A pattern
    /// with more header patterns than a request can carry fields is refused with 400 naming the
    /// bound; one at the bound is stored.
    func testMoreHeaderPatternsThanARequestCanCarryAreRefused() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        func update(headerPatterns count: Int) throws -> RawResponse {
            let headers = Dictionary(uniqueKeysWithValues: (0..<count).map { ("H\($0)", ["kind": "equal", "value": "v"]) })
            return try client.json(
                "POST", "/catbird/api/mocks",
                E2E.jsonText([
                    "type": "update", "pattern": ["method": "GET", "url": ["kind": "equal", "value": "/big\(count)"], "headers": headers],
                    "response": ["status": 200],
                ]), headers: [("X-Catbird-Parallel-Id", "many")])
        }

        E2E.assertError(
            try update(headerPatterns: 20_000), status: 400,
            reasonContains: "the pattern has 20000 header patterns, more than the limit of 7168: it could never match, since a request's "
                + "line and header section are at most 28672 bytes (431 past it) and a header field takes at least 4 of them")
        XCTAssertEqual(try E2E.mocks(client, tenant: "many").count, 0, "nothing stored")

        XCTAssertEqual(try update(headerPatterns: MockPatternLimits.maxHeaderPatterns).status, 201)
        let stored = try E2E.mocks(client, tenant: "many")
        XCTAssertEqual(stored.count, 1)
        let pattern = try XCTUnwrap(stored.first?["pattern"] as? [String: Any])
        XCTAssertEqual((pattern["headers"] as? [String: Any])?.count, MockPatternLimits.maxHeaderPatterns)
    }
}
