import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A HAR entry's `response.content` gives a body sent with a `Content-Encoding` decoded, as
/// HAR 1.2 asks: `text` the decoded text, `size` its size, `compression` the bytes saved, and
/// `response.bodySize` the bytes sent (docs/protocol.md#har-export).
final class HARResponseContentTests: RecordingTestCase {
    /// The exported HAR entry of the request for `path`.
    private func exported(_ client: RawHTTPClient, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let har = try client.request("GET", "/catbird/api/requests.har")
        XCTAssertEqual(har.status, 200, har.text, file: file, line: line)
        let entries = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        return try XCTUnwrap(
            entries.first { ($0["request"] as? [String: Any])?["url"] as? String == "http://127.0.0.1\(path)" }, "\(path) exported: \(har.text)",
            file: file, line: line)
    }

    /// Tester finding T15B-F9, the exact case: the upstream's `/gzip` (a JSON body, gzip
    /// compressed, `Content-Encoding: gzip`) recorded through record mode was exported with its
    /// compressed bytes, base64, in `content.text` (`encoding: "base64"`) and `size` the
    /// compressed size. Now the decoded JSON text, no `encoding`, `size` the decoded size and
    /// `compression` the difference; so is its replay from the recorded file.
    func testAGzipAnswerIsExportedDecoded() throws {
        let recorder = try server(recording: true)
        let sent = try recorder.client().request("GET", "/gzip", headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(sent.header("Content-Encoding"), "gzip")
        XCTAssertEqual(Array(sent.body.prefix(2)), [0x1F, 0x8B], "passed on compressed")
        try assertDecoded(try exported(try recorder.client(), "/gzip"), compressedSize: sent.body.count)
        recorder.stop()

        let replayer = try server(recording: false)
        let replayed = try replayer.client().request("GET", "/gzip")
        XCTAssertEqual(replayed.body, sent.body, "replayed as recorded")
        try assertDecoded(try exported(try replayer.client(), "/gzip"), compressedSize: sent.body.count)
    }

    /// Regression (tester findings tester36a-F1, F2): exported with `bodies=false`, the gzip
    /// answer's `content.size` was its compressed size with no word of it and no `compression`,
    /// and a body the journal cut short said "the journal kept the first 0 of N bytes
    /// (--journal-body-limit)". Now both say the body was left out, the gzip one that its size
    /// is the bytes sent; a body that was not cut says so too (it had no comment).
    func testAnExportWithoutBodiesSaysTheBodiesWereLeftOut() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let sent = try client.request("GET", "/gzip", headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(sent.header("Content-Encoding"), "gzip")
        _ = try client.request("POST", "/cut", body: [UInt8](repeating: 0x61, count: 70_000))  // past the 64 KiB kept
        let har = try client.request("GET", "/catbird/api/requests.har?bodies=false")
        XCTAssertEqual(har.status, 200, har.text)
        let entries = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        func entry(_ path: String) throws -> [String: Any] {
            try XCTUnwrap(entries.first { ($0["request"] as? [String: Any])?["url"] as? String == "http://127.0.0.1\(path)" }, har.text)
        }
        let gzip = try XCTUnwrap(try entry("/gzip")["response"] as? [String: Any])
        let content = try XCTUnwrap(gzip["content"] as? [String: Any])
        XCTAssertEqual(JSONNumber.int(content["size"]), sent.body.count, "\(content)")
        XCTAssertEqual(JSONNumber.int(gzip["bodySize"]), sent.body.count)
        XCTAssertNil(content["text"])
        XCTAssertEqual(
            content["comment"] as? String,
            "the body was left out of this export (bodies=false); size is the bytes sent (Content-Encoding: gzip), not decoded")
        let cut = try XCTUnwrap((try entry("/cut")["request"] as? [String: Any])?["postData"] as? [String: Any])
        XCTAssertEqual(cut["comment"] as? String, "the body was left out of this export (bodies=false)", "\(cut)")
        XCTAssertEqual(cut["text"] as? String, "", "postData's text is required: empty")
    }

    /// Asserts `entry`'s content is the upstream's `/gzip` JSON decoded.
    private func assertDecoded(_ entry: [String: Any], compressedSize: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try XCTUnwrap(entry["response"] as? [String: Any], file: file, line: line)
        let content = try XCTUnwrap(response["content"] as? [String: Any], file: file, line: line)
        let text = try XCTUnwrap(content["text"] as? String, "\(content)", file: file, line: line)
        let decoded = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text, file: file, line: line)
        XCTAssertEqual(decoded["compressed"] as? Bool, true, file: file, line: line)
        XCTAssertEqual(decoded["text"] as? String, String(repeating: "hello ", count: 200), file: file, line: line)
        XCTAssertNil(content["encoding"], "text, not base64: \(content)", file: file, line: line)
        XCTAssertNil(content["comment"], "\(content)", file: file, line: line)
        XCTAssertEqual(JSONNumber.int(content["size"]), text.utf8.count, "the decoded size", file: file, line: line)
        XCTAssertEqual(JSONNumber.int(content["compression"]), text.utf8.count - compressedSize, "the bytes saved", file: file, line: line)
        XCTAssertEqual(JSONNumber.int(response["bodySize"]), compressedSize, "the bytes sent", file: file, line: line)
        XCTAssertEqual(content["mimeType"] as? String, "application/json", file: file, line: line)
    }

    /// A body whose coding is not decoded (`br`), or that is not of its coding (`gzip` over
    /// plain text), is given as sent, with no `compression`, and a `comment` saying why.
    func testABodyThatIsNotDecodedIsGivenAsSentWithAComment() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for (url, coding) in [("/br", "br"), ("/notgzip", "gzip")] {
            try E2E.addMock(client, url: url, responseHeaders: ["Content-Encoding": coding, "Content-Type": "text/plain"], body: "plain")
            XCTAssertEqual(try client.request("GET", url).text, "plain")
        }
        let cases = [
            ("/br", "the body is given as sent (Content-Encoding: br): br is not a coding decoded here (gzip and deflate are); size is the bytes sent, not decoded"),
            ("/notgzip", "the body is given as sent (Content-Encoding: gzip): it could not be decoded ("),
        ]
        for (url, comment) in cases {
            let content = try XCTUnwrap((try exported(client, url)["response"] as? [String: Any])?["content"] as? [String: Any])
            XCTAssertEqual(content["text"] as? String, "plain", url)
            XCTAssertEqual(JSONNumber.int(content["size"]), 5, url)
            XCTAssertNil(content["compression"], url)
            XCTAssertTrue((content["comment"] as? String ?? "").hasPrefix(comment), "\(url): \(content)")
        }
    }

    /// Tester finding tester64a-F4: a gzip answer the journal kept only the start of
    /// (`--journal-body-limit`) was exported with `size` the compressed bytes sent, where HAR
    /// 1.2's `size` is the decoded length, and nothing said so. The comment says it now.
    func testACutCodedBodysSizeIsSaidToBeTheBytesSent() throws {
        let server = try TestServer { $0.journalBodyLimit = 16 }
        defer { server.removeFiles() }
        let client = try server.client()
        // `plain` gzipped: 25 bytes, of which the journal keeps 16.
        let gzipped = Array(Data(base64Encoded: "H4sIAAAAAAACAyvISczMAwDPYiAZBQAAAA==")!)
        let action = E2E.updateAction(url: "/cutgz", responseHeaders: ["Content-Encoding": "gzip", "Content-Type": "text/plain"], body: gzipped)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        XCTAssertEqual(try client.request("GET", "/cutgz").body, gzipped)
        let content = try XCTUnwrap((try exported(client, "/cutgz")["response"] as? [String: Any])?["content"] as? [String: Any])
        XCTAssertEqual(JSONNumber.int(content["size"]), 25, "\(content)")
        XCTAssertNil(content["compression"], "\(content)")
        XCTAssertTrue((content["comment"] as? String ?? "").hasSuffix(
            "the body is given as sent (Content-Encoding: gzip): only its start was kept, which cannot be decoded; size is the bytes sent, not decoded"),
            "\(content)")
    }

    /// Regression (tester finding tester56a-F3, its body: `plain` gzipped, 25 bytes sent for 5):
    /// `compression`, HAR 1.2's "number of bytes saved", was -20. Now it is left out, and a
    /// `comment` says the coding made the body 20 bytes larger; the body is still given decoded.
    func testACodingThatMadeTheBodyLargerSavedNoBytes() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let gzipped = Array(Data(base64Encoded: "H4sIAAAAAAACAyvISczMAwDPYiAZBQAAAA==")!)
        let action = E2E.updateAction(
            url: "/identgz", responseHeaders: ["Content-Encoding": "gzip", "Content-Type": "text/plain"], body: gzipped)
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action).status, 201)
        XCTAssertEqual(try client.request("GET", "/identgz").body, gzipped)
        let response = try XCTUnwrap(try exported(client, "/identgz")["response"] as? [String: Any])
        let content = try XCTUnwrap(response["content"] as? [String: Any])
        XCTAssertEqual(content["text"] as? String, "plain", "\(content)")
        XCTAssertEqual(JSONNumber.int(content["size"]), 5)
        XCTAssertEqual(JSONNumber.int(response["bodySize"]), 25)
        XCTAssertNil(content["compression"], "\(content)")
        XCTAssertEqual(content["comment"] as? String, "Content-Encoding: gzip made the body 20 bytes larger than decoded (25 sent)")
    }

    /// A request body sent with `Content-Encoding: gzip` is given decoded in `postData.text`
    /// too, as HAR 1.2's "plain text posted data" (leftover of session 16's closing note: the
    /// gzip bytes were given as base64 with `_encoding`), while `request.bodySize` stays the
    /// 55 bytes sent; one that is not gzip data is given as sent with a `comment` saying why.
    func testAGzipRequestBodyIsExportedDecoded() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let plain = #"{"event":"signup","text":""# + String(repeating: "hello ", count: 50) + #""}"#
        let gzipped: [UInt8] = [  // Python's gzip.compress(plain, mtime=0)
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xAB, 0x56, 0x4A, 0x2D, 0x4B, 0xCD, 0x2B, 0x51, 0xB2,
            0x52, 0x2A, 0xCE, 0x4C, 0xCF, 0x2B, 0x2D, 0x50, 0xD2, 0x51, 0x2A, 0x49, 0xAD, 0x00, 0xF1, 0x33, 0x52, 0x73, 0x72,
            0xF2, 0x15, 0x46, 0x49, 0x62, 0x48, 0xA5, 0x5A, 0x00, 0xDA, 0x83, 0xAA, 0x1C, 0x48, 0x01, 0x00, 0x00,
        ]
        let json = [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
        XCTAssertEqual(try client.request("POST", "/events", headers: json, body: gzipped).status, 404)
        XCTAssertEqual(try client.request("POST", "/broken", headers: json, body: Array("not gzip".utf8)).status, 404)

        let request = try XCTUnwrap(try exported(client, "/events")["request"] as? [String: Any])
        let postData = try XCTUnwrap(request["postData"] as? [String: Any], "\(request)")
        XCTAssertEqual(postData["text"] as? String, plain, "\(postData)")
        XCTAssertNil(postData["_encoding"], "text, not base64: \(postData)")
        XCTAssertNil(postData["comment"], "\(postData)")
        XCTAssertEqual(postData["mimeType"] as? String, "application/json")
        XCTAssertNil(postData["size"], "postData has no size in HAR 1.2")
        XCTAssertEqual(JSONNumber.int(request["bodySize"]), gzipped.count, "the bytes sent")

        let broken = try XCTUnwrap((try exported(client, "/broken")["request"] as? [String: Any])?["postData"] as? [String: Any])
        XCTAssertEqual(broken["text"] as? String, "not gzip", "\(broken)")
        XCTAssertTrue(
            (broken["comment"] as? String ?? "").hasPrefix("the body is given as sent (Content-Encoding: gzip): it could not be decoded ("),
            "\(broken)")
    }
}
