import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// An upstream answer whose framing cannot be passed on as it came (cut short, a transfer coding
/// Catbird does not decode) is answered with a marked 502 saying so, journaled with that
/// `problem` and not recorded; trailer fields and folded lines are not passed on as they came
/// either (docs/files.md#redirect-and-proxy). Exact answers from tester15b's report.
final class UpstreamAnswerFramingTests: RecordingTestCase {
    /// The journal entry of the request for `path`.
    private func entry(_ client: RawHTTPClient, _ path: String) throws -> [String: Any] {
        try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == path }, "\(path) journaled")
    }

    /// Tester finding T15B-F1: `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Len`,
    /// then closed (no blank line: the head never ended), went out as a complete 200 with an empty
    /// body, no `problem`, and record mode replaced a good recording with an empty file; so did
    /// `HTTP/1.1 500 Internal\r\nX-A: 1\r\n` as a 500. Now a marked 502, journaled, not recorded.
    func testAnAnswerCutInsideItsHeaderSectionIsA502AndNotRecorded() throws {
        let good = mocksDirectory.appendingPathComponent("raw/cuthead")
        try FileManager.default.createDirectory(at: good.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"books":["Dune"]}"#.utf8).write(to: good)
        let recorder = try server(recording: true)
        let client = try recorder.client()
        for (path, fields) in [("/raw/cuthead", "1 complete header field"), ("/raw/cuthead500", "1 complete header field")] {
            let answer = try client.request("GET", path)
            let problem = "the upstream's answer was cut short inside its header section: the upstream closed the connection "
                + "after \(fields) and before the blank line that ends the header section, so the answer is incomplete "
                + "(RFC 9112 section 8): answered 502 in its place"
            // The good file the test wrote at raw/cuthead is checked below: kept as it was.
            try assertMarked502NotRecorded(answer, path: path, problem: problem, client: client, checkingFiles: false)
        }
        XCTAssertEqual(try String(contentsOf: good, encoding: .utf8), #"{"books":["Dune"]}"#, "the good recording is kept")
        XCTAssertFalse(exists("raw/cuthead.catbird-response.json") || exists("raw/cuthead500"), "nothing recorded")
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 2)
    }

    /// Tester finding T15B-F3: a trailer field after a chunked body (`5\r\nhello\r\n0\r\n` then
    /// `Set-Cookie: evil=1`, `Location: http://evil` or `Content-Type: text/html`) was merged into
    /// the header fields: sent to the client as one, journaled and recorded in the sidecar
    /// (`Content-Type` twice on the wire). RFC 9110 section 6.5.2: never merged; now dropped.
    func testTrailerFieldsAreNotMergedIntoTheHeaderFields() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        for (name, field) in [("cookie", "Set-Cookie"), ("location", "Location"), ("type", "Content-Type")] {
            let path = "/raw/trailer\(name)"
            let answer = try client.request("GET", path)
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.text, "hello")
            XCTAssertEqual(answer.headers.filter { $0.name.lowercased() == field.lowercased() }.map(\.value),
                           field == "Content-Type" ? ["text/plain"] : [], "\(path): the trailer is no header field")
            let entry = try entry(client, path)
            XCTAssertNil(entry["problem"] as? String, "\(path): \(entry)")
            let headers = (entry["response"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]
            XCTAssertEqual(headers["Content-Type"] as? String, "text/plain", "\(path): \(headers)")
            XCTAssertNil(headers["Set-Cookie"] ?? headers["Location"], "\(path): \(headers)")
            let sidecar = try String(
                contentsOf: mocksDirectory.appendingPathComponent("raw/trailer\(name).catbird-response.json"), encoding: .utf8)
            XCTAssertFalse(sidecar.contains("evil") || sidecar.contains("text/html"), sidecar)
            XCTAssertEqual(try Data(contentsOf: mocksDirectory.appendingPathComponent("raw/trailer\(name)")), Data("hello".utf8))
        }
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 0)
    }

    /// Tester finding T15B-F16: `Transfer-Encoding: gzip, chunked` with a chunked body holding
    /// gzip("hello te gzip"): the field was left out (hop-by-hop) but the gzip coding stayed, so
    /// the client got gzip bytes as a `text/plain` body, and record mode recorded them so. A
    /// transfer coding Catbird does not decode is now a marked 502, journaled, not recorded.
    func testATransferCodingButChunkedIsA502AndNotRecorded() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        for coding in ["gzip", "deflate"] {
            let path = "/raw/te\(coding)"
            let answer = try client.request("GET", path)
            let problem = "the upstream's answer has Transfer-Encoding \"\(coding), chunked\", a transfer coding Catbird does not "
                + "decode (only chunked), so its body cannot be passed on as the upstream meant it (RFC 9112 section 6.1): "
                + "answered 502 in its place"
            try assertMarked502NotRecorded(answer, path: path, problem: problem, client: client)
        }
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], 2)
    }

    /// Tester finding T15B-F5: `X-Fold: a\r\n  b\r\n` (an obsolete line folding) went out,
    /// was journaled and recorded as `X-Fold: a`, silently. RFC 9112 section 5.2: the fold is
    /// replaced by a space, `a b`, alike on the wire, in the journal and in the recording.
    func testAFoldedFieldValueIsJoinedWithASpace() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let answer = try client.request("GET", "/raw/fold")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "ok")
        XCTAssertEqual(answer.header("X-Fold"), "a b")
        let entry = try entry(client, "/raw/fold")
        XCTAssertNil(entry["problem"] as? String, "\(entry)")
        XCTAssertEqual(((entry["response"] as? [String: Any])?["headers"] as? [String: Any])?["X-Fold"] as? String, "a b")
        let sidecar = try JSONSerialization.jsonObject(
            with: Data(contentsOf: mocksDirectory.appendingPathComponent("raw/fold.catbird-response.json"))) as? [String: Any]
        XCTAssertEqual((sidecar?["headers"] as? [String: Any])?["X-Fold"] as? String, "a b", "\(sidecar ?? [:])")
        recorder.stop()
        let replayer = try server(recording: false)
        let replayed = try replayer.client().request("GET", "/raw/fold")
        XCTAssertEqual(replayed.header("X-Fold"), "a b", "replayed as recorded")
    }

    /// Tester15b's item: `Content-Length: 9` with `hello`, then closed, was answered `502 upstream
    /// unreachable: … transfer closed with 4 bytes remaining to read`, with no `problem`: the
    /// upstream was reached, and cut its answer short. Now the reason says so, journaled. A
    /// chunked body cut short with a `Content-Length: 20` beside its chunked coding is worded by
    /// the chunked framing libcurl read it by, which overrides the length (RFC 9112 section
    /// 6.3; re-read: it was `after 5 of the 20 body bytes its Content-Length announced`).
    func testABodyCutShortIsSaidToBeCutShort() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let cases = [
            ("/raw/cutbody", "after 5 of the 9 body bytes its Content-Length announced (4 missing)"),
            ("/raw/cutchunked", "before the end of its chunked body, after 5 body bytes"),
            ("/raw/cutchunkedcl", "before the end of its chunked body, after 5 body bytes"),
        ]
        for (path, what) in cases {
            let answer = try client.request("GET", path)
            let problem = "the upstream's answer was cut short: the upstream closed the connection \(what), so the answer is "
                + "incomplete (RFC 9112 section 8): answered 502 in its place"
            XCTAssertFalse(answer.text.contains("unreachable"), answer.text)
            try assertMarked502NotRecorded(answer, path: path, problem: problem, client: client)
        }
        XCTAssertEqual(try E2E.metrics(client)["catbird_recordings_failed_total"], Double(cases.count))
    }
}
