import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// tester41a-F2: with `--head-timeout off`, heads closed to make room were told the request line
/// and header fields "were not complete within 0 seconds". They are now told what happened: still
/// arriving after a second while every slot was taken.
final class HeadTimeoutOffRoomTests: XCTestCase {
    func testAHeadClosedForRoomWithTheHeadTimeoutOffSaysWhy() throws {
        let server = try TestServer {
            $0.headTimeout = nil
            $0.connectionLimit = 20
        }
        defer { server.removeFiles() }
        let heads = try (0..<30).map { _ in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array("GET /x HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: A\r\nX-Slow: a".utf8))
            return client
        }
        Thread.sleep(forTimeInterval: 2.5)
        let newcomer = try RawHTTPClient(port: server.port, timeoutSeconds: 15)
        XCTAssertEqual(try newcomer.request("GET", "/catbird/api/health").status, 200)
        let cut = heads.map { String(decoding: $0.readUntilQuiet(firstByteWithin: 200, quietAfter: 100), as: UTF8.self) }.filter { !$0.isEmpty }
        XCTAssertFalse(cut.isEmpty, "heads were closed to make room")
        for answer in cut {
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408 "), answer)
            XCTAssertTrue(answer.contains("the request line and header fields were still arriving after a second while every connection slot was taken"), answer)
            XCTAssertFalse(answer.contains("0 seconds"), answer)
        }
    }
}
