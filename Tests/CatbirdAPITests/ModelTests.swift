import CatbirdAPI
import Foundation
import XCTest

/// The value types' public surface and JSON shapes.
final class ModelTests: CatbirdTestCase {
    func testHTTPMethod() throws {
        let literal: RequestPattern.HTTPMethod = "PROPFIND"
        XCTAssertEqual(literal.rawValue, "PROPFIND")
        XCTAssertEqual(RequestPattern.HTTPMethod.GET, RequestPattern.HTTPMethod(rawValue: "GET"))
        XCTAssertEqual(RequestPattern.HTTPMethod("PUT"), .PUT)
        XCTAssertEqual([RequestPattern.HTTPMethod.GET, .POST, .PUT, .PATCH, .DELETE].map(\.description), ["GET", "POST", "PUT", "PATCH", "DELETE"])
        XCTAssertEqual(String(decoding: try JSONEncoder().encode([RequestPattern.HTTPMethod.PATCH]), as: UTF8.self), #"["PATCH"]"#)
        XCTAssertEqual(try JSONDecoder().decode([RequestPattern.HTTPMethod].self, from: Data(#"["get"]"#.utf8)), ["get"], "kept as is, case included")
        XCTAssertThrowsError(try JSONDecoder().decode([RequestPattern.HTTPMethod].self, from: Data(#"[{"rawValue":"GET"}]"#.utf8)))
    }

    /// `answeredBy` is a plain JSON string both ways, values a newer server may add included.
    func testAnsweredBy() throws {
        let values: [CatbirdRequest.AnsweredBy] = [.mock, .unanswered, CatbirdRequest.AnsweredBy(rawValue: "later")]
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(values), as: UTF8.self), #"["mock","none","later"]"#)
        XCTAssertEqual(
            try JSONDecoder().decode([CatbirdRequest.AnsweredBy].self, from: Data(#"["file","later"]"#.utf8)),
            [.file, CatbirdRequest.AnsweredBy(rawValue: "later")])
        XCTAssertThrowsError(try JSONDecoder().decode([CatbirdRequest.AnsweredBy].self, from: Data("[1]".utf8)))
    }

    func testPatternRepresentable() {
        XCTAssertEqual(RequestPattern(method: .GET, url: "/login").url, .equal("/login"))
        XCTAssertEqual(RequestPattern(method: .GET, url: URL(string: "/login")!).url, .equal("/login"))
        XCTAssertEqual(RequestPattern(method: .GET, url: URL(string: "http://example.com/a?b=1")!).url, .equal("http://example.com/a?b=1"))
        XCTAssertEqual(RequestPattern(method: .GET, url: PatternMatch.regexp("^/a")).url, PatternMatch(kind: .regexp, value: "^/a"))
        let pattern = RequestPattern(method: .GET, url: "/", headers: ["A": "x", "B": PatternMatch.wildcard("y*")])
        XCTAssertEqual(pattern.headers, ["A": .equal("x"), "B": .wildcard("y*")])
        XCTAssertEqual(PatternMatch.wildcard("w").kind, .wildcard)
        XCTAssertEqual(PatternMatch.equal("e").value, "e")
    }

    /// The server's leniency is mirrored: a missing `headers` reads as `{}`.
    func testDecodingIsLenientAboutHeaders() throws {
        let pattern = try JSONDecoder().decode(RequestPattern.self, from: Data(#"{"method":"GET","url":{"kind":"equal","value":"/"}}"#.utf8))
        XCTAssertEqual(pattern, RequestPattern(method: .GET, url: "/"))
        let response = try JSONDecoder().decode(ResponseMock.self, from: Data(#"{"status":204}"#.utf8))
        XCTAssertEqual(response, ResponseMock(status: 204))
        XCTAssertThrowsError(try JSONDecoder().decode(ResponseMock.self, from: Data(#"{"status":200,"body":"%%%"}"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode(CatbirdAction.self, from: Data(#"{"type":"explode"}"#.utf8)))
    }

    func testSQLValueDecoding() throws {
        let json = #"[null, 1, -9007199254740993, 2.5, "text", {"base64": "AP8="}]"#
        let values = try JSONDecoder().decode([CatbirdSQLValue].self, from: Data(json.utf8))
        XCTAssertEqual(values, [.null, .integer(1), .integer(-9_007_199_254_740_993), .real(2.5), .text("text"), .blob(Data([0, 255]))])
        let encoded = try JSONEncoder().encode(values)
        XCTAssertEqual(try JSONDecoder().decode([CatbirdSQLValue].self, from: encoded), values)
        XCTAssertThrowsError(try JSONDecoder().decode(CatbirdSQLValue.self, from: Data(#"[1]"#.utf8)))
        XCTAssertEqual(CatbirdSQLValue.real(3).intValue, 3)
        XCTAssertNil(CatbirdSQLValue.real(3.5).intValue)
        XCTAssertEqual(CatbirdSQLValue.text("a").dataValue, Data("a".utf8))
        XCTAssertEqual(false as CatbirdSQLValue, .integer(0))
    }

    func testCatbirdError() {
        let error = CatbirdError(statusCode: 415, reason: "Content-Type must be application/json")
        XCTAssertEqual(error.statusCode, 415)
        XCTAssertEqual(error.errorCode, 415)
        XCTAssertEqual(error.reason, error.failureReason)
        XCTAssertEqual(CatbirdError.errorDomain, "com.redmadrobot.catbird.APIErrorDomain")
        XCTAssertTrue(error.description.contains("415"), error.description)
        XCTAssertTrue(error.description.contains("Content-Type must be application/json"), error.description)
        XCTAssertNil(CatbirdError(statusCode: 500, reason: nil).failureReason)
        // Catbird 0.11's texts: the status phrase as the description, the reason apart.
        #if os(Linux)
        let phrase = "Status code: 415"
        #else
        let phrase = HTTPURLResponse.localizedString(forStatusCode: 415)
        #endif
        XCTAssertEqual(error.errorDescription, phrase)
        XCTAssertEqual(error.localizedDescription, phrase)
        XCTAssertEqual(error.errorUserInfo[NSLocalizedFailureReasonErrorKey] as? String, "Content-Type must be application/json")
        XCTAssertNil(CatbirdError(statusCode: 500, reason: nil).errorUserInfo[NSLocalizedFailureReasonErrorKey])
        // The domain is settable, as in 0.11, and bridging uses the new value.
        let original = CatbirdError.errorDomain
        CatbirdError.errorDomain = "com.example.Renamed"
        XCTAssertEqual((error as NSError).domain, "com.example.Renamed")
        CatbirdError.errorDomain = original
        XCTAssertEqual((error as NSError).domain, "com.redmadrobot.catbird.APIErrorDomain")
    }

    /// Journal entries decode from the server's shape, dates included.
    func testJournalEntryDecoding() throws {
        let json = """
            {"requests":[{"id":7,"time":"2026-11-29T18:01:27.123Z","tenant":"","method":"GET","url":"/a?b=1",
            "request":{"headers":{"Host":"h"},"body":"hi","bodyBase64":"aGk=","bodySize":10,"bodyTruncated":true},
            "response":{"status":404,"headers":{},"bodySize":0,"bodyTruncated":false},
            "answeredBy":"redirect","mockId":null,"durationMs":1.5}],"hasMore":false,"nextSince":7}
            """
        let page = try JSONDecoder().decode(CatbirdRequestPage.self, from: Data(json.utf8))
        let entry = try XCTUnwrap(page.requests.first)
        XCTAssertEqual(entry.time.timeIntervalSince1970, 1_795_975_287.123, accuracy: 0.0005)
        XCTAssertEqual(entry.request.body, Data("hi".utf8))
        XCTAssertEqual(entry.request.bodySize, 10)
        XCTAssertTrue(entry.request.bodyTruncated)
        XCTAssertEqual(entry.request.header("host"), "h")
        XCTAssertEqual(entry.response.status, 404)
        XCTAssertEqual(entry.response.body, Data())
        XCTAssertEqual(entry.answeredBy, .redirect)
        XCTAssertNil(entry.mockId)
        XCTAssertEqual(page.nextSince, 7)

        let leap = json.replacingOccurrences(of: "2026-11-29T18:01:27.123Z", with: "2024-02-29T00:00:00Z")
        let leapEntry = try XCTUnwrap(try JSONDecoder().decode(CatbirdRequestPage.self, from: Data(leap.utf8)).requests.first)
        XCTAssertEqual(leapEntry.time.timeIntervalSince1970, 1_709_164_800)
        let bad = json.replacingOccurrences(of: "2026-11-29T18:01:27.123Z", with: "yesterday")
        XCTAssertThrowsError(try JSONDecoder().decode(CatbirdRequestPage.self, from: Data(bad.utf8)))

        // Encoding writes the server's shape back: the same JSON, timestamp text included.
        let reencoded = try JSONEncoder().encode(page)
        XCTAssertEqual(try JSONDecoder().decode(CatbirdRequestPage.self, from: reencoded), page)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: reencoded) as? [String: Any])
        let first = try XCTUnwrap((object["requests"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["time"] as? String, "2026-11-29T18:01:27.123Z")
        XCTAssertTrue(first.keys.contains("mockId"))
    }

    func testTimestampsBeforeTheEpochAndAroundLeapDays() throws {
        for text in ["1969-12-31T23:59:59.999Z", "2000-02-29T12:00:00.000Z", "2100-03-01T00:00:00.001Z", "1970-01-01T00:00:00.000Z"] {
            let json = #"{"id":1,"position":1,"pattern":{"method":"GET","url":{"kind":"equal","value":"/"}},"#
                + #""response":{"status":200},"remainingLimit":null,"hits":0,"createdAt":"\#(text)"}"#
            let mock = try JSONDecoder().decode(CatbirdMock.self, from: Data(json.utf8))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(mock)) as? [String: Any])
            XCTAssertEqual(object["createdAt"] as? String, text)
        }
        let epoch = try JSONDecoder().decode(
            CatbirdMock.self,
            from: Data(#"{"id":1,"position":1,"pattern":{"method":"GET","url":{"kind":"equal","value":"/"}},"response":{"status":200},"hits":0,"createdAt":"1970-01-01T00:00:01Z"}"#.utf8))
        XCTAssertEqual(epoch.createdAt, Date(timeIntervalSince1970: 1))
        XCTAssertNil(epoch.remainingLimit)
    }
}
