import CatbirdStorage
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A stop while a large mock `update` is written in pieces (docs/answering-later.md#the-guarantees):
/// the answer its client gets and the mocks found after a restart agree. A `503 the server is
/// stopping` means nothing changed; a 201 means the new body is served.
final class UpdateAtStopTests: XCTestCase {
    /// The server's piece size (docs/schema.md#mock-bodies-in-pieces).
    private static let piece = 512 << 10
    /// The new body: 36 MiB, 72 pieces.
    private static let pieces = 72

    /// Regression (tester24a-F1, its repro in process): SIGTERM's stop 1 s into a 40 MiB update
    /// answered it `503 the server is stopping` while its pool thread went on and committed it;
    /// after a restart the "refused" body was served (7 of 7 runs). Now the write gives up before
    /// its next piece: the 503 is true, and the old body is served.
    func testAStopBetweenPiecesAnswers503AndChangesNothing() throws {
        let (status, reason, served, old, new) = try stop(onceThePiecesReach: 4)
        XCTAssertEqual(status, 503, "stopped 4 pieces of \(Self.pieces) in: the write gives up")
        XCTAssertTrue(reason.contains("the server is stopping"), reason)
        XCTAssertEqual(Self.which(served, old, new), "old", "the 503 means the update was not applied")
    }

    /// A stop once the last piece is in, as the row commits or just before: the answer is
    /// whichever happened, 201 with the new body served or 503 with the old.
    func testAStopAtTheLastPieceAnswersWhatHappened() throws {
        let (status, reason, served, old, new) = try stop(onceThePiecesReach: Self.pieces)
        switch status {
        case 201: XCTAssertEqual(Self.which(served, old, new), "new", "a 201: the new body is served")
        case 503: XCTAssertEqual(Self.which(served, old, new), "old", "a 503 (\(reason)): the old body is served")
        default: XCTFail("\(status) \(reason)")
        }
    }

    /// Adds `/big` with a 1 MiB body, sends an update of it with a 36 MiB body, stops the server
    /// once the file holds `pieces` pieces of the new body, restarts it and reads `/big`.
    private func stop(onceThePiecesReach pieces: Int) throws
        -> (status: Int, reason: String, served: [UInt8], old: [UInt8], new: [UInt8]) {
        let server = try TestServer { $0.maxBodySize = 100 << 20 }
        defer { server.removeFiles() }
        let old = Self.body(2 * Self.piece, seed: 1)
        let new = Self.body(Self.pieces * Self.piece, seed: 2)
        XCTAssertEqual(try Self.post(server.client(), old).status, 201)
        let oldPieces = try Self.storedPieces(server.databasePath)
        XCTAssertEqual(oldPieces, 2)

        let answer = Mutex<(Int, String)?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let port = server.port
        let update = Array(E2E.updateAction(url: "/big", body: new).utf8)
        DispatchQueue.global().async {
            let response = try? Self.send(RawHTTPClient(port: port, timeoutSeconds: 120), update)
            answer.withLock { $0 = response.map { ($0.status, $0.text) } ?? (0, "no answer") }
            answered.signal()
        }
        let deadline = ContinuousClock.now + .seconds(120)
        var seen = 0
        while seen < oldPieces + pieces, ContinuousClock.now < deadline {
            seen = (try? Self.storedPieces(server.databasePath)) ?? 0
            usleep(1_000)
        }
        XCTAssertGreaterThanOrEqual(seen, oldPieces + pieces, "the pieces were being written")
        server.stop()
        XCTAssertEqual(answered.wait(timeout: .now() + 60), .success)
        let (status, reason) = answer.withLock { $0 } ?? (0, "no answer")

        try server.restart()
        let served = try server.client().request("GET", "/big").body
        return (status, reason, served, old, new)
    }

    /// Which body `served` is: `old`, `new`, or its size (not the bytes: an assertion message
    /// of 36 MiB).
    private static func which(_ served: [UInt8], _ old: [UInt8], _ new: [UInt8]) -> String {
        served == old ? "old" : served == new ? "new" : "another body of \(served.count) bytes"
    }

    /// `size` bytes: a 64 KiB block from a 64-bit LCG seeded with `seed`, repeated (fast in a
    /// debug build; two seeds give two bodies).
    private static func body(_ size: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        let block: [UInt8] = (0..<(64 << 10)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        while bytes.count < size { bytes.append(contentsOf: block.prefix(size - bytes.count)) }
        return bytes
    }

    private static func send(_ client: RawHTTPClient, _ action: [UInt8]) throws -> RawResponse {
        try client.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json")], body: action)
    }

    private static func post(_ client: RawHTTPClient, _ mockBody: [UInt8]) throws -> RawResponse {
        try send(client, Array(E2E.updateAction(url: "/big", body: mockBody).utf8))
    }

    /// The pieces in the file (committed ones: read through a connection of its own).
    private static func storedPieces(_ path: String) throws -> Int {
        let database = try Database(path: path, mode: .readOnly)
        defer { database.close() }
        return Int(try database.query("SELECT count(*) FROM mock_body_pieces").first?[0].intValue ?? -1)
    }
}
