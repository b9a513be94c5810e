import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension TestServer {
    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A client of this server, scoped to `parallelId`.
    func catbird(_ parallelId: String? = nil, session: URLSession = Catbird.session) -> Catbird {
        Catbird(url: baseURL, session: session, parallelId: parallelId)
    }

    /// An app request (what the app under test would send), on a new connection.
    @discardableResult
    func appRequest(
        _ method: String, _ target: String, parallelId: String? = nil, headers: [(String, String)] = [], body: String? = nil
    ) throws -> RawResponse {
        var allHeaders = headers
        if let parallelId { allHeaders.append((CatbirdAction.parallelIdHeaderField, parallelId)) }
        return try client().request(method, target, headers: allHeaders, body: body.map { Array($0.utf8) })
    }
}

/// A control action's JSON with `response.body` replaced by the JSON its base64 bytes hold
/// (when they are JSON), so that two bodies made by `JSONSerialization` with different key
/// orders compare equal.
func canonicalActionJSON(_ data: Data) throws -> String {
    var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    if var response = object["response"] as? [String: Any], let base64 = response["body"] as? String {
        let bytes = try XCTUnwrap(Data(base64Encoded: base64), "body is not base64")
        if let json = try? JSONSerialization.jsonObject(with: bytes) { response["body"] = ["json": json] }
        object["response"] = response
    }
    return try canonicalJSON(object: object)
}

/// A test case whose tests crash the test process when one runs longer than 60 seconds, so
/// that a deadlocked synchronous call fails the run instead of hanging it.
class CatbirdTestCase: XCTestCase {
    private var finished: DeadlockFlag?

    override func setUp() {
        super.setUp()
        let flag = DeadlockFlag()
        finished = flag
        let name = self.name
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            if !flag.isSet { fatalError("\(name) did not finish within 60 s (deadlocked?)") }
        }
    }

    override func tearDown() {
        finished?.set()
        super.tearDown()
    }
}

/// Crashes the test process when `body` has not returned within `seconds`: a deadlocked
/// main thread cannot report a failure any other way, and a crash fails the run instead of
/// hanging it.
func failingOnDeadlock<T>(after seconds: Double = 30, _ what: String, _ body: () throws -> T) rethrows -> T {
    let finished = DeadlockFlag()
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        if !finished.isSet { fatalError("deadlock: \(what) did not return within \(seconds) s") }
    }
    defer { finished.set() }
    return try body()
}

final class DeadlockFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

/// Asserts that `body` throws a ``CatbirdError`` with `status`, and returns it.
@discardableResult
func assertCatbirdError<T>(
    _ status: Int, _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line
) -> CatbirdError? {
    checkCatbirdError(status, Result { try body() }, file: file, line: line)
}

/// The async form of `assertCatbirdError`.
@discardableResult
func assertCatbirdErrorAsync<T>(
    _ status: Int, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T
) async -> CatbirdError? {
    let outcome: Result<T, any Error>
    do {
        outcome = .success(try await body())
    } catch {
        outcome = .failure(error)
    }
    return checkCatbirdError(status, outcome, file: file, line: line)
}

/// What both forms check: `outcome` is a ``CatbirdError`` with `status`, returned.
private func checkCatbirdError<T>(_ status: Int, _ outcome: Result<T, any Error>, file: StaticString, line: UInt) -> CatbirdError? {
    switch outcome {
    case .success:
        XCTFail("expected CatbirdError \(status), got a success", file: file, line: line)
        return nil
    case let .failure(error as CatbirdError):
        XCTAssertEqual(error.statusCode, status, "\(error)", file: file, line: line)
        return error
    case let .failure(error):
        XCTFail("expected CatbirdError \(status), got \(error)", file: file, line: line)
        return nil
    }
}
