import CatbirdTestSupport
import Foundation
import XCTest

/// A mock's header names are echoed cut to 64 bytes in a 400's reason, as every echoed key is
/// (docs/protocol.md#errors), so the complaint after the name stays in the reason.
final class EchoedHeaderNameCutTests: ServerTestCase {
    /// Tester finding T19B-F16, the exact inputs: `update` with a `response.headers` name of
    /// `X-` and 20,000 `k` and the value `v\n` gave a reason of 8,003 bytes, the name whole and
    /// the bound's `…` where "has a control character" should be; likewise `X ` + 20,000 `k`
    /// ("not a valid HTTP field name" never shown). A pattern header's name, in its dotted path
    /// (`'pattern.headers.X-kkkk….value'`), was echoed whole too, in a 400 and in a warning.
    func testALongHeaderNameIsCutAndTheComplaintShown() throws {
        let k = String(repeating: "k", count: 20_000)
        let k62 = String(repeating: "k", count: 62)
        let cases: [(action: String, expected: String)] = [
            (E2E.updateAction(url: "/h", responseHeaders: ["X-" + k: "v\n"], body: nil),
             #"response header "X-\#(k62)…" (20002 bytes) has a control character (such as a line break) in its value"#),
            (E2E.updateAction(url: "/h", responseHeaders: ["X " + k: "v"], body: nil),
             #"response header name "X \#(k62)…" (20002 bytes) is not a valid HTTP field name"#),
            (E2E.updateAction(url: "/h", headerPatterns: ["X-" + k: ("equal", "a\nb")], body: nil),
             "'pattern.headers.X-\(k62)….value' holds a NUL, CR or LF character"),
        ]
        for (action, expected) in cases {
            let answer = try client.json("POST", "/catbird/api/mocks", action)
            E2E.assertError(answer, status: 400, reasonContains: expected)
            XCTAssertLessThan((answer.object["reason"] as? String ?? "").utf8.count, 400, String(answer.text.prefix(400)))
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "no mock was added")
        // The warning of an `equal` header value with spaces around it names the header so too.
        let added = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/h", headerPatterns: ["X-" + k: ("equal", " a")], body: nil))
        XCTAssertEqual(added.status, 201, String(added.text.prefix(400)))
        let warnings = added.object["warnings"] as? [String] ?? []
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.hasPrefix(#"'pattern.headers.X-\#(k62)….value' " a" has spaces or tabs around it"#) ?? false, "\(warnings)")
    }
}
