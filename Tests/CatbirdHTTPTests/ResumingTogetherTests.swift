@testable import CatbirdHTTP
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// `HTTPServer.resumingTogether`: answers given inside it (as the journal writer releases one
/// commit's strict answers) wake each worker thread once, after the body returns; every answer
/// then leaves, on every worker, nested calls included. Two workers, so both loops are woken.
final class ResumingTogetherTests: XCTestCase {
    func testAnswersGivenTogetherAllLeaveOnceTheBodyReturns() throws {
        let handler = DeferredHandler()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2), handler: handler)
        try server.start()
        defer { server.stop() }
        let port = server.port
        let count = 16
        let results = Mutex<[Int: String]>([:])
        let clients = onThreads(count) { index in
            let text: String
            do {
                text = try RawHTTPClient(port: port).request("GET", "/together/\(index)").text
            } catch {
                text = "error: \(error)"
            }
            results.withLock { $0[index] = text }
        }
        XCTAssertEqual(handler.waitForWaiting(count), count)
        XCTAssertEqual(server.connectionsPerWorker.filter { $0 > 0 }.count, 2, "both workers hold parked requests")

        let responders = (0..<count).map { handler.take("/together/\($0)")! }
        HTTPServer.resumingTogether {
            for (index, responder) in responders.enumerated() where index % 2 == 0 {
                responder.send(HTTPResponse(status: 200, body: Array("answer \(index)".utf8)))
            }
            HTTPServer.resumingTogether {  // nested: woken when the outer call returns
                for (index, responder) in responders.enumerated() where index % 2 == 1 {
                    responder.send(HTTPResponse(status: 200, body: Array("answer \(index)".utf8)))
                }
            }
        }
        XCTAssertEqual(clients.wait(timeout: .now() + 30), .success, "an answer given together never left")
        let answers = results.withLock { $0 }
        for index in 0..<count {
            XCTAssertEqual(answers[index], "answer \(index)")
        }
        XCTAssertEqual(server.core.parked.count, 0)
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/now").text, "now", "the workers still serve")
    }
}
