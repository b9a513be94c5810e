import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--cors` and the response head's size (docs/protocol.md#response-head-size): the CORS fields
/// (`Access-Control-Allow-Origin` with the request's origin, `Access-Control-Expose-Headers`
/// naming every field, …) are part of the head that goes out, so every check of an answer's
/// head counts them.
final class CORSHeadSizeTests: XCTestCase {
    /// 800 fields of 25-byte names: a head of about 24,300 bytes, under the 28 KiB a mock's may
    /// have (so the mock is added), and about 45,900 bytes with `Access-Control-Expose-Headers`
    /// listing every name, more than any request leaves.
    private static let manyFields = Dictionary(uniqueKeysWithValues: (0..<800).map { (String(format: "X-Exposed-Field-Name-%04d", $0), "v") })
    private static let origin = ("Origin", "http://app.test:3000")

    /// Regression: a mock whose head fits undecorated but not with the CORS fields, asked by a
    /// small request with an `Origin`, got the 500 while its hit, never made refundable, was
    /// "given back" to no effect: the `limit: 1` mock was gone from memory while its row kept the
    /// use, and metrics counted a mock 5xx where the journal said unanswered (relaxed); a
    /// delayed one was given back and then settled again. Now: the 500 journaled as the
    /// server's answer, no hit, the use kept in memory and in the row; a request without an
    /// `Origin` still gets the mock.
    func testAMockHeadTooLargeWithItsCORSFieldsIsAnswered500AndKeepsItsUse() throws {
        for durability in [Durability.relaxed, .strict] {
            let server = try TestServer { settings in
                settings.cors = true
                settings.durability = durability
            }
            defer { server.removeFiles() }
            let control = try server.client()
            let label = "\(durability)"
            try E2E.addMock(control, tenant: "cors", url: "/plain", responseHeaders: Self.manyFields, body: "hi", limit: 1)
            try E2E.addMock(control, tenant: "cors", url: "/delayed", responseHeaders: Self.manyFields, body: "hi", limit: 1, delay: 1)
            for path in ["/plain", "/delayed"] {
                let refused = try control.request("GET", path, headers: E2E.tenantHeader("cors") + [Self.origin])
                XCTAssertEqual(refused.status, 500, "\(label) \(path): \(refused.text)")
                XCTAssertTrue((refused.object["reason"] as? String)?.contains("has a header section of") == true, "\(label): \(refused.text)")
            }
            let journal = try E2E.journal(control, tenant: "cors", once: 2)
            for entry in journal {
                XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 500, "\(label): \(entry)")
                XCTAssertEqual(entry["answeredBy"] as? String, "none", "\(label): \(entry)")
                XCTAssertTrue(E2E.isNull(entry["mockId"]), "\(label): \(entry)")
            }
            let expected = [["/delayed", "1", "0"], ["/plain", "1", "0"]]  // url, remainingLimit, hits
            XCTAssertEqual(try listed(control), expected, "live table (\(label))")
            XCTAssertEqual(try stored(server.databasePath), expected, "SQLite file (\(label))")

            let plain = try control.request("GET", "/plain", headers: E2E.tenantHeader("cors"))
            XCTAssertEqual(plain.status, 200, "\(label): without an Origin the head fits: \(plain.text)")
            XCTAssertEqual(plain.header("X-Exposed-Field-Name-0799"), "v", label)
            XCTAssertEqual(try listed(control), [["/delayed", "1", "0"]], "the one use spent (\(label))")
        }
    }

    /// Regression: with `--cors` and record mode, an upstream answer whose head fits beside the
    /// request undecorated but not with the CORS fields (here a 6,000-byte `Origin`, echoed in
    /// `Access-Control-Allow-Origin`, beside an `X-Big` of 23,000 bytes) was written as a file
    /// mock while the client got the 502, whose journal entry named the file. Now nothing is
    /// written and the entry has no `filePath`; without the `Origin` the answer is forwarded and
    /// recorded.
    func testAnUpstreamAnswerTooLargeWithItsCORSFieldsIsNotRecorded() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let recorded = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-cors-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: recorded) }
        let server = try TestServer { settings in
            settings.cors = true
            settings.redirectURL = upstream.baseURL
            settings.recordMode = true
            settings.mocksDirectory = recorded.path
        }
        defer { server.removeFiles() }
        let client = try server.client()
        let longOrigin = ("Origin", "http://" + String(repeating: "o", count: 6000) + ".test")
        let answer = try RawHTTPClient(port: server.port).request("GET", "/bigheader/23000", headers: [longOrigin])
        XCTAssertEqual(answer.status, 502, answer.text)
        XCTAssertTrue((answer.object["reason"] as? String)?.contains("the upstream's answer has a header section of") == true, answer.text)
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 1).first)
        XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, 502, "\(entry)")
        XCTAssertTrue(E2E.isNull(entry["filePath"]), "no file was written: \(entry)")
        XCTAssertEqual(try recordedFiles(recorded), [], "nothing recorded")

        let undecorated = try RawHTTPClient(port: server.port).request("GET", "/bigheader/23000")
        XCTAssertEqual(undecorated.status, 200, "without an Origin the answer fits: \(undecorated.text)")
        XCTAssertEqual(try recordedFiles(recorded).count, 1, "and is recorded")
    }

    /// The files record mode wrote for `/bigheader`.
    private func recordedFiles(_ directory: URL) throws -> [String] {
        ((FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String]) ?? [])
            .filter { $0.contains("bigheader") && !$0.hasSuffix(".catbird-response.json") && !$0.hasSuffix("bigheader") }
    }

    /// The tenant's mocks as listed: url, remainingLimit, hits, by url.
    private func listed(_ control: RawHTTPClient) throws -> [[String]] {
        try E2E.mocks(control, tenant: "cors").map { mock in
            let url = ((mock["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String ?? "?"
            return [url] + ["remainingLimit", "hits"].map { "\(JSONNumber.int(mock[$0]) ?? -1)" }
        }.sorted { $0[0] < $1[0] }
    }

    /// The tenant's rows in the `mocks` table of the file: url, remaining_limit, hits, by url.
    private func stored(_ path: String) throws -> [[String]] {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        return try db.query(
            "SELECT url_value, remaining_limit, hits FROM mocks WHERE tenant = 'cors' ORDER BY url_value")
            .map { row in [row[0].stringValue ?? "?", "\(row[1].intValue ?? -1)", "\(row[2].intValue ?? -1)"] }
    }
}
