import CatbirdDomain
import CatbirdTestSupport
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
        XCTAssertEqual(
            found.headers.map { "\($0.name): \($0.value)" },
            ["Content-Encoding: gzip", "Content-Type: application/json", "X-Id: 7", "X-Id: 8"], "the body is kept as encoded")
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
        // Statuses 200, 210, … 350: each one replay serves with a body (not a 204 or 205).
        let bodies = (0..<16).map { index in [UInt8](repeating: UInt8(65 + index), count: 200_000 + index) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            do {
                try recorder.record(method: "GET", target: "/big", accept: nil, status: 200 + 10 * index, headers: [], body: bodies[index])
            } catch {
                failures.append("\(index): \(error)")
            }
        }
        XCTAssertEqual(failures.value, [], "every GET recording of one path is written")
        let written = try XCTUnwrap(FileManager.default.contents(atPath: directory.path + "/big"))
        let index = try XCTUnwrap(bodies.firstIndex { Data($0) == written }, "the file is one whole body")
        XCTAssertEqual(try recorder.directory.lookup(target: "/big", accept: nil)?.status, 200 + 10 * index, "sidecar pairs with the body")
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

    // The GET-recording rule (docs/files.md#recording): a file recorded from a GET, or one with no
    // recorded method, is replaced only by a GET's answer; other methods replace each other's.

    /// Records `method`'s answer `body` at `target` with `recorder`.
    private static func record(_ recorder: FileMockRecorder, _ method: String, _ target: String, status: Int = 200, _ body: String) throws {
        try recorder.record(method: method, target: target, accept: nil, status: status, headers: [], body: Array(body.utf8))
    }

    func testOnlyAGETReplacesAGETRecording() throws {
        let directory = try TemporaryMocksDirectory()
        let recorder = FileMockRecorder(directory: try directory.mocks())
        try Self.record(recorder, "GET", "/book", "good")
        for method in ["POST", "PUT", "DELETE", "get"] {
            XCTAssertThrowsError(try Self.record(recorder, method, "/book", status: 501, "no")) { error in
                guard case let FileMockError.keptGETRecording(path, refused) = error else {
                    return XCTFail("\(method): \(error)")
                }
                XCTAssertEqual(path, recorder.directory.root + "/book")
                XCTAssertEqual(refused, method)
            }
        }
        XCTAssertEqual(directory.read("book"), "good")
        XCTAssertEqual(try recorder.directory.lookup(target: "/book", accept: nil)?.status, 200)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }, [])

        try Self.record(recorder, "GET", "/book", status: 203, "newer")
        XCTAssertEqual(directory.read("book"), "newer")
        XCTAssertEqual(try recorder.directory.lookup(target: "/book", accept: nil)?.status, 203)
    }

    func testOtherMethodsReplaceEachOtherUntilAGETComes() throws {
        let directory = try TemporaryMocksDirectory()
        let recorder = FileMockRecorder(directory: try directory.mocks())
        try Self.record(recorder, "POST", "/order", status: 201, "posted")
        try Self.record(recorder, "PUT", "/order", "put")
        XCTAssertEqual(directory.read("order"), "put")
        try Self.record(recorder, "GET", "/order", "got")
        XCTAssertThrowsError(try Self.record(recorder, "POST", "/order", status: 201, "")) { error in
            guard case let FileMockError.keptGETRecording(path, refused) = error else {
                return XCTFail("POST after a GET recording: \(error)")
            }
            XCTAssertEqual(path, recorder.directory.root + "/order")
            XCTAssertEqual(refused, "POST")
        }
        XCTAssertEqual(directory.read("order"), "got")
    }

    func testAFileWithoutARecordedMethodIsKeptLikeAGETRecording() throws {
        let directory = try TemporaryMocksDirectory()
        try directory.write("hand.json", #"{"written":"by hand"}"#)
        try directory.write("older.json", "older")
        try directory.write("older.json" + FileMockSidecar.suffix, #"{"status":202}"#)
        try directory.write("broken.json", "broken")
        try directory.write("broken.json" + FileMockSidecar.suffix, "{not json")
        let recorder = FileMockRecorder(directory: try directory.mocks())
        for name in ["hand", "older", "broken"] {
            XCTAssertThrowsError(try Self.record(recorder, "POST", "/\(name).json", status: 500, ""), "\(name).json")
        }
        XCTAssertEqual(directory.read("hand.json"), #"{"written":"by hand"}"#)
        XCTAssertEqual(directory.read("older.json"), "older")
        XCTAssertEqual(directory.read("broken.json"), "broken")
        try Self.record(recorder, "GET", "/older.json", "fresh")
        XCTAssertEqual(directory.read("older.json"), "fresh")
    }

    /// A GET and other methods recording one path at once: the GET's answer is the one left,
    /// whichever renames first (the rule is checked again where the renames are serialised).
    func testAGETRecordingWinsOverConcurrentOtherMethods() throws {
        for round in 0..<20 {
            let directory = try TemporaryMocksDirectory()
            let recorder = FileMockRecorder(directory: try directory.mocks())
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let method = index == 4 ? "GET" : "POST"
                do {
                    try Self.record(recorder, method, "/race", status: method == "GET" ? 200 : 501, method)
                } catch FileMockError.keptGETRecording {
                    if method == "GET" { failures.append("the GET was refused") }
                } catch {
                    failures.append("\(method): \(error)")
                }
            }
            XCTAssertEqual(failures.value, [], "round \(round)")
            XCTAssertEqual(directory.read("race"), "GET", "round \(round)")
            XCTAssertEqual(try recorder.directory.lookup(target: "/race", accept: nil)?.status, 200, "round \(round)")
        }
    }
}
