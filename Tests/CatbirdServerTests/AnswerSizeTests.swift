import CatbirdTestSupport
import Foundation
import XCTest

/// Every API answer is bounded in bytes or streamed within a memory bound (docs/protocol.md).
final class AnswerSizeTests: XCTestCase {
    /// Regression: `GET /catbird/api/mocks` encoded the whole listing at once. A tenant with 10
    /// mocks of 20 MB bodies (a 267 MB answer) took the server's peak RSS from 490 MB to 1.1 GB
    /// while it was listed. Now the listing is streamed mock by mock, the same bytes as
    /// before, and the peak does not move. Measured on a real `catbird` process: VmHWM, reset
    /// after the uploads (their own peak hid the listing's: a listing built whole raised it by
    /// 39 MB from there, under the bound; from the reset, by 65 MB).
    func testTheMockListingOfLargeBodiesIsStreamedWithoutRaisingThePeak() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let bodySize = 8_000_000
            let count = 6
            func body(_ index: Int) -> Data {
                Data("mock \(index) ".utf8) + Data(repeating: UInt8(ascii: "a") + UInt8(index), count: bodySize)
            }
            for index in 0..<count {
                let body = body(index)
                let action = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/big/\#(index)"},"headers":{}},"#
                    + #""response":{"status":200,"headers":{"X-Body":"\#(index)"},"body":"\#(body.base64EncodedString())"}}"#
                let added = try client.json("POST", "/catbird/api/mocks", action, headers: [("X-Catbird-Parallel-Id", "big")])
                XCTAssertEqual(added.status, 201, added.text)
            }
            // A mock with an empty body after the large ones.
            try E2E.addMock(client, tenant: "big", url: "/small", body: "")
            // The uploads set a peak of their own (the mocks' JSON, base64): reset it, so the
            // peaks below are the listing's.
            try server.resetPeakResident()
            let before = try server.currentResidentMegabytes()

            // Regression: HEAD counted the listing's bytes by base64-encoding every body, on the
            // worker (48 MB of bodies, 64 MB of base64, per HEAD). Now the bodies' base64 is
            // counted arithmetically, so 20 HEADs cost the server far less than encoding once.
            let cpuBefore = try server.cpuSeconds()
            var declared: [String?] = []
            for _ in 0..<20 {
                let head = try client.request("HEAD", "/catbird/api/mocks", headers: [("X-Catbird-Parallel-Id", "big")])
                XCTAssertEqual(head.status, 200)
                declared.append(head.header("Content-Length"))
            }
            let headCPU = try server.cpuSeconds() - cpuBefore
            let peakAfterHead = try server.peakResidentMegabytes()
            XCTAssertLessThan(headCPU, 0.3, "20 HEADs of the listing took \(headCPU) s of the server's CPU")
            XCTAssertLessThan(peakAfterHead - before, 10, "HEAD raised the server's peak RSS from \(before) MB to \(peakAfterHead) MB")
            print("20 HEADs of a \(count * bodySize)-byte listing: \(headCPU) s of server CPU")
            try server.resetPeakResident()

            let answer = try client.request("GET", "/catbird/api/mocks", headers: [("X-Catbird-Parallel-Id", "big")])
            XCTAssertEqual(Set(declared), ["\(answer.body.count)"], "HEAD declares GET's length")
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.header("Content-Type"), "application/json; charset=utf-8")
            XCTAssertGreaterThan(answer.body.count, count * bodySize * 4 / 3)
            let listing = answer.object
            XCTAssertEqual(listing["tenant"] as? String, "big")
            let mocks = try XCTUnwrap(listing["mocks"] as? [[String: Any]])
            XCTAssertEqual(mocks.count, count + 1)
            for (index, mock) in mocks.prefix(count).enumerated() {
                let pattern = mock["pattern"] as? [String: Any]
                XCTAssertEqual((pattern?["url"] as? [String: Any])?["value"] as? String, "/big/\(index)")
                let response = try XCTUnwrap(mock["response"] as? [String: Any])
                XCTAssertEqual(response["headers"] as? [String: String], ["X-Body": "\(index)"])
                let listedBody = try XCTUnwrap(Data(base64Encoded: response["body"] as? String ?? ""), "mock \(index)'s body is not base64")
                XCTAssertEqual(listedBody, body(index), "mock \(index)'s body")
                XCTAssertEqual(mock["hits"] as? Int, 0)
            }
            XCTAssertEqual((mocks.last?["response"] as? [String: Any])?["body"] as? String, "", "an empty body, as before")

            // Generous: the whole answer is 64 MB; built at once it took 2-3 times that.
            let peak = try server.peakResidentMegabytes()
            XCTAssertLessThan(peak - before, 40, "listing the mocks raised the server's peak RSS from \(before) MB to \(peak) MB")
            print("mock listing: \(answer.body.count) bytes; server VmRSS \(before) MB before, VmHWM \(peak) MB after")
        }
    }

    /// Regression: the 408 said a URL was cut when it was not if it held combining marks:
    /// SQLite's `length` and `substr` count code points (`/e\u{301}` is 3) and the check
    /// compared Swift's `String.count`, graphemes (2), so `GET /é… (3 characters)` was shown.
    func testTheWaitTimeoutCutsURLsWithCombiningMarksOnlyWhenLong() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = [("X-Catbird-Parallel-Id", "marks")]
        let long = "/" + String(repeating: "e\u{301}", count: 150)  // 301 code points, 151 graphemes
        XCTAssertEqual(try client.request("GET", "/e\u{301}", headers: tenant).status, 404)
        XCTAssertEqual(try client.request("GET", long, headers: tenant).status, 404)
        let answer = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"},"headers":{}},"timeout":0}"#,
            headers: tenant)
        XCTAssertEqual(answer.status, 408, answer.text)
        let reason = try XCTUnwrap(answer.object["reason"] as? String)
        let cut = "/" + String(repeating: "e\u{301}", count: 99) + "e… (301 characters)"
        XCTAssertTrue(reason.hasSuffix("the journal has: GET /e\u{301} → 404, GET \(cut) → 404"), reason)
    }

    /// tester48b-F1, its wait: a `contains` body pattern of 9,000 bytes filled the 408's
    /// 8,000-byte reason, and what did arrive (the useful part) was left out. The pattern's
    /// long values are shown cut, as in near misses.
    func testTheWaitTimeoutCutsALongPatternAndStillListsArrivals() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = [("X-Catbird-Parallel-Id", "w408")]
        XCTAssertEqual(try client.request("POST", "/upload", headers: tenant, body: Array("hello".utf8)).status, 404)
        let needle = String(repeating: "N", count: 9_000)
        let answer = try client.json(
            "POST", "/catbird/api/requests/wait",
            #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/upload"},"body":{"kind":"contains","value":"\#(needle)"}},"timeout":0}"#,
            headers: tenant)
        XCTAssertEqual(answer.status, 408, answer.text)
        let reason = try XCTUnwrap(answer.object["reason"] as? String)
        XCTAssertEqual(reason, #"no request matching POST equal "/upload" body contains ""# + String(repeating: "N", count: 200)
            + #"… (9000 bytes)" arrived within 0 s; after entry 0 the journal has: POST /upload → 404"#)
    }

    /// Regression: the wait route's 408 listed what arrived through a second page builder that
    /// read each entry whole (headers, near misses) and put every URL in the reason in full:
    /// 20 requests with 6,000-character URLs made a 120 KB reason. Now it reads the method, the
    /// URL's first 200 characters and the status only.
    func testTheWaitTimeoutListsArrivalsWithTheirURLsCut() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let long = "/" + String(repeating: "u", count: 6_000)
        for index in 0..<25 {
            XCTAssertEqual(try client.request("GET", long + "\(index)", headers: [("X-Catbird-Parallel-Id", "w")]).status, 404)
        }
        let answer = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"},"headers":{}},"timeout":0}"#,
            headers: [("X-Catbird-Parallel-Id", "w")])
        XCTAssertEqual(answer.status, 408, answer.text)
        let reason = try XCTUnwrap(answer.object["reason"] as? String)
        let shown = "GET /" + String(repeating: "u", count: 199) + "… (6002 characters) → 404"
        XCTAssertTrue(reason.hasPrefix(#"no request matching GET equal "/never" arrived within 0 s; after entry 0 the journal has: \#(shown), \#(shown)"#), String(reason.prefix(600)))
        XCTAssertEqual(reason.components(separatedBy: " → 404").count - 1, 20, "20 entries listed")
        XCTAssertTrue(reason.hasSuffix(", … and more"), String(reason.suffix(100)))
        XCTAssertLessThan(answer.body.count, 6_000, "the reason lists 20 short lines")
    }
}
