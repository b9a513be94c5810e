import CatbirdTestSupport
import Foundation
import XCTest

/// try7b F6: a complete chunked request whose chunk-size line carried a 40,000-byte chunk
/// extension got no answer for 120 s (then a reset), journaled as a time-out: libmicrohttpd
/// 0.9.75 holds a chunk-size line whole in the connection memory and, the line longer than
/// what is left of it, reads nothing more. Now it is refused with 413 within about a second
/// and journaled so (``ChunkLineWatch``; docs/protocol.md#malformed-requests).
final class ChunkExtensionLengthTests: XCTestCase {
    private static func chunked(extensionBytes: Int) -> String {
        "POST /ok HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: w3\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;" + String(repeating: "e", count: extensionBytes) + "\r\nhello\r\n0\r\n\r\n"
    }

    /// The finding's exact request: `5;` + 40,000 × `e`, then the chunk and the last chunk.
    func testAnOversizedChunkExtensionIsRefusedPromptly() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "w3", method: "POST", url: "/ok", body: "ok")
        let client = try server.client()
        let started = ContinuousClock.now
        try client.send(raw: Array(Self.chunked(extensionBytes: 40_000).utf8))
        let (bytes, closed) = client.readUntilClosed(within: 10)
        let answer = String(decoding: bytes, as: UTF8.self)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10), "answered, not left to the 120 s idle timeout")
        XCTAssertTrue(closed, "the connection closed after the answer")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 413 "), answer)
        XCTAssertTrue(answer.contains("a chunk-size line of the chunked body (the size and its chunk extensions) is longer than"), answer)

        let journal = try E2E.journal(control, tenant: "w3", once: 1)
        XCTAssertEqual(journal.first?["url"] as? String, "/ok")
        XCTAssertEqual(JSONNumber.int((journal.first?["response"] as? [String: Any])?["status"]), 413, "\(journal)")
        XCTAssertTrue((journal.first?["problem"] as? String ?? "").hasPrefix("refused while its chunked body was read"), "\(journal)")
        XCTAssertEqual(try E2E.mocks(control, tenant: "w3").map { JSONNumber.int($0["hits"]) }, [0])
    }

    /// Reference and guard: a 1,000-byte extension (which fits) is read and answered as before;
    /// a chunked upload that pauses for 2 s mid-chunk, its bytes all read meanwhile, is not
    /// taken for stalled.
    func testShortExtensionsAndPausedUploadsAreAnswered() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "w3", method: "POST", url: "/ok", body: "ok")
        let short = try server.client()
        try short.send(raw: Array(Self.chunked(extensionBytes: 1_000).utf8))
        let answered = try short.readResponse()
        XCTAssertEqual(answered.status, 200, answered.text)
        XCTAssertEqual(answered.text, "ok")

        let paused = try server.client()
        try paused.send(raw: Array("POST /ok HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: w3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel".utf8))
        Thread.sleep(forTimeInterval: 2)
        try paused.send(raw: Array("lo\r\n0\r\n\r\n".utf8))
        let resumed = try paused.readResponse()
        XCTAssertEqual(resumed.status, 200, resumed.text)
        XCTAssertEqual(resumed.text, "ok")
    }
}
