import CatbirdDomain
import Dispatch
import Foundation
import XCTest

/// Recording writes files the same request finds again, whole and confined.
final class FileMockRecorderTests: XCTestCase {
    func testRecordingIsFoundAgainWithStatusAndHeaders() throws {
        let directory = try TemporaryMocksDirectory()
        let recorder = FileMockRecorder(directory: try directory.mocks())
        let path = try recorder.record(
            method: "GET", target: "/api/books?page=2", accept: "application/json", status: 201,
            headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Date", "x"),
                      ("Transfer-Encoding", "chunked"), ("X-Id", "7"), ("X-Id", "8")],
            body: Array("[1,2]".utf8))
        XCTAssertEqual(path, recorder.directory.root + "/api/books.json")
        let found = try XCTUnwrap(try recorder.directory.lookup(target: "/api/books", accept: "application/json"))
        XCTAssertEqual(found.status, 201)
        XCTAssertEqual(found.headers.map { "\($0.name): \($0.value)" }, ["Content-Type: application/json", "X-Id: 7", "X-Id: 8"])
        XCTAssertEqual(directory.read("api/books.json"), "[1,2]")
    }

    func testShorterBodyReplacesLongerOne() throws {
        let directory = try TemporaryMocksDirectory()
        let recorder = FileMockRecorder(directory: try directory.mocks())
        try recorder.record(method: "GET", target: "/a.txt", accept: nil, status: 200, headers: [], body: Array("a much longer body".utf8))
        try recorder.record(method: "GET", target: "/a.txt", accept: nil, status: 404, headers: [], body: Array("short".utf8))
        XCTAssertEqual(directory.read("a.txt"), "short")
        XCTAssertEqual(try recorder.directory.lookup(target: "/a.txt", accept: nil)?.status, 404)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testConcurrentRecordingsOfOnePathNeverInterleave() throws {
        let directory = try TemporaryMocksDirectory()
        let recorder = FileMockRecorder(directory: try directory.mocks())
        let bodies = (0..<16).map { index in [UInt8](repeating: UInt8(65 + index), count: 200_000 + index) }
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            _ = try? recorder.record(method: "GET", target: "/big", accept: nil, status: 200 + index, headers: [], body: bodies[index])
        }
        let written = try XCTUnwrap(FileManager.default.contents(atPath: directory.path + "/big"))
        let index = try XCTUnwrap(bodies.firstIndex { Data($0) == written }, "the file is one whole body")
        XCTAssertEqual(try recorder.directory.lookup(target: "/big", accept: nil)?.status, 200 + index, "sidecar pairs with the body")
    }

    func testRecordingRefusesToLeaveTheDirectory() throws {
        let outside = try TemporaryMocksDirectory()
        let directory = try TemporaryMocksDirectory()
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/up", withDestinationPath: outside.path)
        let recorder = FileMockRecorder(directory: try directory.mocks())
        XCTAssertThrowsError(try recorder.record(method: "GET", target: "/up/x.txt", accept: nil, status: 200, headers: [], body: []))
        XCTAssertThrowsError(try recorder.record(method: "GET", target: "/%2e%2e/x.txt", accept: nil, status: 200, headers: [], body: []))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [])
    }

    func testQueryInFileNameWhenAsked() throws {
        let directory = try TemporaryMocksDirectory()
        let recorder = FileMockRecorder(directory: try directory.mocks(includesQuery: true))
        try recorder.record(method: "GET", target: "/search?q=a", accept: nil, status: 200, headers: [], body: Array("A".utf8))
        try recorder.record(method: "GET", target: "/search?q=b", accept: nil, status: 200, headers: [], body: Array("B".utf8))
        XCTAssertEqual(directory.read("search?q=a"), "A")
        XCTAssertEqual(directory.read("search?q=b"), "B")
        XCTAssertEqual(try recorder.directory.lookup(target: "/search?q=b", accept: nil)?.size, 1)
    }
}
