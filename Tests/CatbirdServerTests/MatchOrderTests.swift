import CatbirdTestSupport
import XCTest

/// First match in list order (Catbird 0.11) must hold across the equal-URL index and the
/// wildcard/regexp mocks, with many mocks in the table.
final class MatchOrderTests: XCTestCase {
    private func add(_ client: RawHTTPClient, method: String = "GET", kind: String, url: String, body: String,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let base64 = Data(body.utf8).base64EncodedString()
        let response = try client.json("POST", "/catbird/api/mocks", """
            {"type":"update","pattern":{"method":"\(method)","url":{"kind":"\(kind)","value":"\(url)"},"headers":{}},
             "response":{"status":200,"headers":{},"body":"\(base64)"}}
            """)
        XCTAssertEqual(response.status, 201, file: file, line: line)
    }

    func testFirstMatchWinsAcrossIndexedAndPatternMocks() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // Positions 1...1000: /item/0 ... /item/999 (equal); 1001: wildcard /item/1*;
        // 1002...2001: /item/1000 ... /item/1999 (equal); 2002: regexp ^/item/2.
        for index in 0..<1000 { try add(client, kind: "equal", url: "/item/\(index)", body: "equal \(index)") }
        try add(client, kind: "wildcard", url: "/item/1*", body: "wildcard")
        for index in 1000..<2000 { try add(client, kind: "equal", url: "/item/\(index)", body: "equal \(index)") }
        try add(client, kind: "regexp", url: "^/item/2", body: "regexp")

        // Earlier equal mock beats the later wildcard.
        XCTAssertEqual(try client.request("GET", "/item/15").text, "equal 15")
        XCTAssertEqual(try client.request("GET", "/item/999").text, "equal 999")
        // The wildcard (position 1001) beats later equal mocks that also match.
        XCTAssertEqual(try client.request("GET", "/item/1500").text, "wildcard")
        XCTAssertEqual(try client.request("GET", "/item/1000").text, "wildcard")
        // Not matched by the wildcard: the later equal mock answers.
        XCTAssertEqual(try client.request("GET", "/item/500").text, "equal 500")
        // Only the regexp matches.
        XCTAssertEqual(try client.request("GET", "/item/2000").text, "regexp")
        XCTAssertEqual(try client.request("GET", "/item/20/x").text, "regexp")
        // Method must match: nothing for POST.
        XCTAssertEqual(try client.request("POST", "/item/15", body: []).status, 404)
        // Nothing matches at all.
        XCTAssertEqual(try client.request("GET", "/other").status, 404)
    }

    func testReplaceInPlaceKeepsPositionAgainstPatternMocks() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try add(client, kind: "equal", url: "/a", body: "first")
        try add(client, kind: "wildcard", url: "/*", body: "catch-all")
        // Same pattern as the first mock: replaced in place, so it still precedes the catch-all.
        try add(client, kind: "equal", url: "/a", body: "replaced")
        XCTAssertEqual(try client.request("GET", "/a").text, "replaced")
        XCTAssertEqual(try client.request("GET", "/b").text, "catch-all")
        let mocks = try client.request("GET", "/catbird/api/mocks").object["mocks"] as? [[String: Any]] ?? []
        XCTAssertEqual(mocks.count, 2)
        let urls = mocks.compactMap { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String }
        XCTAssertEqual(urls, ["/a", "/*"])
    }

    /// Candidates come from several index buckets (equal URL, required prefix, required 3-byte
    /// gram, patterns tried for every URL); list order must hold across all of them. Each mock
    /// answers once (limit 1), so the answers name the matching mocks in position order.
    func testListOrderHoldsAcrossIndexBuckets() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let mocks: [(kind: String, url: String)] = [
            ("regexp", "items/4"),               // 3-byte gram bucket
            ("wildcard", "/shop/other/*"),       // prefix bucket, does not match
            ("equal", "/shop/items/42?x=1"),     // equal-URL index
            ("wildcard", "/SHOP/*"),             // prefix bucket, other case
            ("regexp", "^/nope"),                // prefix bucket, does not match
            ("regexp", "\\d"),                 // tried for every URL
            ("wildcard", "*42*"),                // tried for every URL (too little literal text)
            ("regexp", "^/shop/items"),          // prefix bucket
            ("wildcard", "*/items/42?x=1"),      // gram bucket
            ("regexp", "zzz"),                   // gram bucket, does not match
        ]
        for (index, mock) in mocks.enumerated() {
            try E2E.addMock(client, url: mock.url, kind: mock.kind, body: "\(index)", limit: 1)
        }
        var answers: [String] = []
        for _ in 0..<8 {
            let response = try client.request("GET", "/shop/items/42?x=1")
            answers.append(response.status == 200 ? response.text : "\(response.status)")
        }
        XCTAssertEqual(answers, ["0", "2", "3", "5", "6", "7", "8", "404"])
    }
}
