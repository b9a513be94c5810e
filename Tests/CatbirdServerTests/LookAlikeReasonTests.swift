import CatbirdTestSupport
import Foundation
import XCTest

/// tester43a-F2, the finding's exact requests: a `jsonPath` mock expecting `"10:00 AM"` and an
/// app (iOS 17's date formatting) sending `"10:00\u{202F}AM"`; a mock `/api/users` and a request
/// for `/api/users\u{200B}`. The 404's reason showed two texts that looked the same. Such
/// characters are now written as their code points in the reason.
final class LookAlikeReasonTests: ServerTestCase {
    func testCharactersThatDoNotShowAreNamedInThe404Reason() throws {
        let mock = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/api/alarm"},"headers":{},"body":{"kind":"jsonPath","value":"$.time","equalTo":"10:00 AM"}},"response":{"status":201,"headers":{}}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock, headers: E2E.tenantHeader("nnbsp")).status, 201)
        let alarm = try client.request(
            "POST", "/api/alarm", headers: E2E.tenantHeader("nnbsp") + [("Content-Type", "application/json")],
            body: Array(#"{"time":"10:00\#u{202F}AM"}"#.utf8))
        XCTAssertEqual(alarm.status, 404)
        let reason = alarm.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"the body has "10:00<U+202F>AM" there, not "10:00 AM""#), reason)
        XCTAssertFalse(reason.unicodeScalars.contains { $0.value == 0x202F }, reason)

        try E2E.addMock(client, tenant: "zw", url: "/api/users", body: "u")
        let raw = try server.client()
        try raw.send(raw: Array("GET /api/users\u{200B} HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: zw\r\n\r\n".utf8))
        let users = try raw.readResponse()
        XCTAssertEqual(users.status, 404)
        let text = users.object["reason"] as? String ?? ""
        XCTAssertTrue(text.contains(#"url differs (expected equal "/api/users", got "/api/users<U+200B>")"#), text)
        // The near miss's fields keep the value as sent.
        let near = try XCTUnwrap((users.object["nearMisses"] as? [[String: Any]])?.first)
        let url = try XCTUnwrap((near["fields"] as? [[String: Any]])?.first { $0["field"] as? String == "url" })
        XCTAssertEqual(url["actual"] as? String, "/api/users\u{200B}")
        // A reason with other non-ASCII text is left as it is.
        try E2E.addMock(client, tenant: "cafe", url: "/café", body: "c")
        let cafe = try client.request("GET", "/caf%C3%A9e", headers: E2E.tenantHeader("cafe"))
        XCTAssertTrue((cafe.object["reason"] as? String ?? "").contains("/café"), cafe.text)
    }
}
