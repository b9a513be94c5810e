import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Record mode keeps the order of one field's values whatever the letter case of their names
/// (docs/files.md#sidecar). Tester finding tester20a-F3: `set-cookie: session=old` then
/// `Set-Cookie: session=new` were recorded as two sidecar keys and replayed in the keys'
/// sorted order, so the replayed client kept `session=old` where the live one kept `new`.
final class RecordFieldOrderTests: RecordingTestCase {
    /// The tester's answers: two spellings (`/raw/cookieorder`), and three (`/raw/cookiethree`:
    /// `Set-Cookie: a=1`, `set-cookie: b=2`, `SET-COOKIE: c=3`, replayed c, a, b). Each is one
    /// key spelled as the first field, an array in the order received, and replays so.
    func testOneFieldInSeveralSpellingsIsOneArrayReplayedInTheOrderReceived() throws {
        let cases: [(path: String, key: String, values: [String])] = [
            ("/raw/cookieorder", "set-cookie", ["session=old; Path=/", "session=new; Path=/"]),
            ("/raw/cookiethree", "Set-Cookie", ["a=1", "b=2", "c=3"]),
        ]
        let recorder = try server(recording: true)
        let client = try recorder.client()
        for (path, _, values) in cases {
            let live = try client.request("GET", path)
            XCTAssertEqual(live.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value), values, "live order")
        }
        recorder.stop()
        upstream.stop()

        for (path, key, values) in cases {
            let sidecar = try Data(contentsOf: mocksDirectory.appendingPathComponent(String(path.dropFirst()) + ".catbird-response.json"))
            let headers = try XCTUnwrap((try JSONSerialization.jsonObject(with: sidecar) as? [String: Any])?["headers"] as? [String: Any])
            XCTAssertEqual(Array(headers.keys), [key], "one key, spelled as the first field: \(headers)")
            XCTAssertEqual(headers[key] as? [String], values)
        }
        let replayer = try server(recording: false)
        let replay = try replayer.client()
        for (path, _, values) in cases {
            let answer = try replay.request("GET", path)
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value), values, "replayed in the order received")
        }
    }
}
