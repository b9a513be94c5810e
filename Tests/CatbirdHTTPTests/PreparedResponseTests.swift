@testable import CatbirdHTTP
import CatbirdTestSupport
import Dispatch
import Synchronization
import XCTest

/// ``HTTPResponse/prepared()``: a response made into libmicrohttpd's form once is sent as given
/// on every request, from every worker, and a copy changed afterwards is sent as changed.
final class PreparedResponseTests: XCTestCase {
    /// `/same`: one prepared response, sent again and again. `/changed`: a copy of it with a field
    /// added and a new body after preparing.
    private struct Handler: HTTPHandler {
        let prepared = HTTPResponse(
            status: 201, headers: ["Content-Type": "application/json", "X-Kind": "prepared"], body: Array(#"{"ok":true}"#.utf8)
        ).prepared()

        func respond(to request: HTTPRequest) -> HTTPAnswer {
            switch request.path {
            case "/same":
                return .now(prepared)
            case "/changed":
                var changed = prepared
                changed.headers.add(name: "X-Changed", value: "yes")
                changed.body = Array("changed".utf8)
                return .now(changed)
            default:
                return .now(HTTPResponse(status: 404))
            }
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
            .now(HTTPResponse(status: 413))
        }
    }

    func testAPreparedResponseIsSentAsGivenOnEveryRequestAndConnection() throws {
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: Handler())
        try server.start()
        defer { server.stop() }
        // Four clients at once, so both workers send the one shared form at the same time.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let client = try RawHTTPClient(port: server.port)
                for _ in 0..<50 {
                    let response = try client.request("GET", "/same")
                    if response.status != 201 || response.text != #"{"ok":true}"# || response.header("X-Kind") != "prepared" {
                        failures.withLock { $0.append("\(response.status) \(response.text)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        for _ in 0..<4 {
            let client = try RawHTTPClient(port: server.port)
            for _ in 0..<5 {
                let response = try client.request("GET", "/same")
                XCTAssertEqual(response.status, 201)
                XCTAssertEqual(response.text, #"{"ok":true}"#)
                XCTAssertEqual(response.header("Content-Type"), "application/json")
                XCTAssertEqual(response.header("X-Kind"), "prepared")
                XCTAssertEqual(response.header("Content-Length"), "11")
            }
            let head = try client.request("HEAD", "/same")
            XCTAssertEqual(head.status, 201)
            XCTAssertEqual(head.body, [], "libmicrohttpd leaves out a HEAD answer's body")
        }
    }

    func testAChangedCopyIsSentAsChanged() throws {
        XCTAssertTrue(Handler().prepared.isPrepared)
        var copy = Handler().prepared
        copy.status = 200
        XCTAssertFalse(copy.isPrepared, "a new status drops the prepared form")
        var fieldsOnly = Handler().prepared
        fieldsOnly.headers.add(name: "X-More", value: "1")
        XCTAssertFalse(fieldsOnly.isPrepared, "new fields drop the prepared form")
        var bodyOnly = Handler().prepared
        bodyOnly.body = Array("other".utf8)
        XCTAssertFalse(bodyOnly.isPrepared, "a new body drops the prepared form")
        var delayed = Handler().prepared
        delayed.delay = .seconds(1)
        XCTAssertTrue(delayed.isPrepared, "a delay is not part of the bytes sent")
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: Handler())
        try server.start()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let changed = try client.request("GET", "/changed")
        XCTAssertEqual(changed.status, 201)
        XCTAssertEqual(changed.text, "changed")
        XCTAssertEqual(changed.header("X-Changed"), "yes")
        XCTAssertEqual(changed.header("Content-Length"), "7")
        XCTAssertEqual(try client.request("GET", "/same").text, #"{"ok":true}"#, "the prepared original is untouched")
    }
}
