@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import XCTest

/// File-backed and streamed response bodies (`HTTPResponse.Body`) over real sockets.
final class ResponseBodyTests: XCTestCase {
    /// Answers `/file?offset=&length=` from `path`, `/missing` from a file that does not exist,
    /// `/directory` from a directory, `/stream/<n>` with n bytes of a counting pattern,
    /// `/chunked/<n>` the same without a length, and `/failing/<n>` n bytes then a failure.
    private struct BodyHandler: HTTPHandler {
        let path: String
        let directory: String

        func respond(to request: HTTPRequest) -> HTTPAnswer {
            let parts = request.path.split(separator: "/")
            var parameters: [String: UInt64] = [:]
            for pair in (request.query ?? "").split(separator: "&") {
                let kv = pair.split(separator: "=")
                if kv.count == 2 { parameters[String(kv[0])] = UInt64(kv[1]) }
            }
            switch parts.first {
            case "file":
                return .now(HTTPResponse(
                    status: 200, headers: ["Content-Type": "application/octet-stream"],
                    content: .file(path: path, offset: parameters["offset"] ?? 0, length: parameters["length"])))
            case "missing":
                return .now(HTTPResponse(status: 200, content: .file(path: directory + "/no-such-file")))
            case "directory":
                return .now(HTTPResponse(status: 200, content: .file(path: directory)))
            case "stream", "chunked":
                let total = UInt64(parts.last.flatMap { Int($0) } ?? 0)
                let stream = HTTPBodyStream { offset, buffer in
                    guard offset < total else { return .finished }
                    let count = Int(min(UInt64(buffer.count), total - offset, 1000))  // small chunks
                    for index in 0..<count { buffer[index] = ResponseBodyTests.byte(at: offset + UInt64(index)) }
                    return .wrote(count)
                }
                return .now(HTTPResponse(status: 200, content: .stream(length: parts.first == "stream" ? total : nil, stream)))
            case "failing":
                // `/failing/<n>?length=<declared>`: n bytes, then the stream fails.
                let total = UInt64(parts.last.flatMap { Int($0) } ?? 0)
                let stream = HTTPBodyStream { offset, buffer in
                    guard offset < total else { return .failed }
                    let count = Int(min(UInt64(buffer.count), total - offset))
                    for index in 0..<count { buffer[index] = ResponseBodyTests.byte(at: offset + UInt64(index)) }
                    return .wrote(count)
                }
                return .now(HTTPResponse(status: 200, content: .stream(length: parameters["length"], stream)))
            default:
                return .now(HTTPResponse(status: 404))
            }
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer { .now(HTTPResponse(status: 413)) }
    }

    static func byte(at offset: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 31 &+ offset / 251) }

    private var directory = ""
    private var path = ""
    private var contents: [UInt8] = []
    private var server: HTTPServer!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-body-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/big.bin"
        contents = (0..<(3 << 20 + 12345)).map { Self.byte(at: UInt64($0)) }  // 3 MiB and a bit
        try Data(contents).write(to: URL(fileURLWithPath: path))
        server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: BodyHandler(path: path, directory: directory))
        try server.start()
    }

    override func tearDown() {
        server?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A stream that fails ends its answer visibly: the connection closes without a chunked
    /// body's last chunk, or short of the declared length, and the server serves on.
    func testAFailingStreamClosesTheConnectionWithoutEndingTheBody() throws {
        for target in ["/failing/100000", "/failing/100000?length=200000"] {
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let (bytes, closed) = client.readUntilClosed(within: 10)
            XCTAssertTrue(closed, "\(target): the connection is closed, not left waiting")
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), target)
            XCTAssertFalse(text.hasSuffix("0\r\n\r\n"), "\(target): no last chunk")
            let head = bytes.firstRange(of: Array("\r\n\r\n".utf8)).map { $0.upperBound } ?? 0
            XCTAssertGreaterThan(bytes.count - head, 50_000, "\(target): what was written before the failure is sent")
            XCTAssertLessThan(bytes.count - head, 200_000, "\(target): short of the declared length")
        }
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/stream/10").body.count, 10, "the server serves on")
    }

    func testAWholeFileIsSentWithItsLength() throws {
        let response = try RawHTTPClient(port: server.port).request("GET", "/file")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Length"), "\(contents.count)")
        XCTAssertEqual(response.header("Content-Type"), "application/octet-stream")
        XCTAssertTrue(response.body == contents, "the file's bytes, all \(contents.count) of them")
    }

    func testARegionOfAFileIsSentAndHeadSendsItsLengthOnly() throws {
        let client = try RawHTTPClient(port: server.port)
        let region = try client.request("GET", "/file?offset=1000000&length=70000")
        XCTAssertEqual(region.header("Content-Length"), "70000")
        XCTAssertTrue(region.body == Array(contents[1_000_000..<1_070_000]))
        let tail = try client.request("GET", "/file?offset=\(contents.count - 10)")
        XCTAssertTrue(tail.body == Array(contents.suffix(10)))
        let head = try client.request("HEAD", "/file")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "\(contents.count)")
        XCTAssertEqual(head.body, [])
        // The keep-alive connection is still in step after HEAD.
        XCTAssertEqual(try client.request("GET", "/file?offset=5&length=3").body, Array(contents[5..<8]))
    }

    func testAFileThatCannotBeSentIs500() throws {
        let client = try RawHTTPClient(port: server.port)
        for target in ["/missing", "/directory", "/file?offset=\(contents.count + 1)", "/file?offset=10&length=\(contents.count)"] {
            let response = try client.request("GET", target)
            XCTAssertEqual(response.status, 500, target)
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", target)
            XCTAssertEqual(response.object["error"] as? Bool, true, target)
            XCTAssertEqual(response.object["reason"] as? String, "the server could not read the file for this response", target)
        }
    }

    func testAStreamWithALengthIsSentInChunksWithContentLength() throws {
        let client = try RawHTTPClient(port: server.port)
        let response = try client.request("GET", "/stream/200000")
        XCTAssertEqual(response.header("Content-Length"), "200000")
        XCTAssertTrue(response.body == Array(contents[0..<200_000]))
        let head = try client.request("HEAD", "/stream/5000")
        XCTAssertEqual(head.header("Content-Length"), "5000")
        XCTAssertEqual(try client.request("GET", "/stream/0").body, [])
    }

    func testAStreamWithoutALengthIsChunked() throws {
        let client = try RawHTTPClient(port: server.port)
        let response = try client.request("GET", "/chunked/123456")
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(response.header("Content-Length"))
        XCTAssertTrue(response.body == Array(contents[0..<123_456]))
        XCTAssertEqual(try client.request("GET", "/chunked/10").body, Array(contents[0..<10]), "the connection stays usable")
    }
}
