// The shapes Catbird 0.11's own client tests used: a mock enum with `.init` shorthands, a
// session built from `Catbird.session`'s configuration with a URLProtocol, `parallelId` set
// after creation, NSError comparisons, actions decoded and compared, `import struct`.
import CatbirdAPI
import struct CatbirdAPI.PatternMatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

enum BookMock: CatbirdMockConvertible {
    case first

    var pattern: RequestPattern {
        .init(method: .PUT, url: "/books/1")
    }

    var response: ResponseMock {
        .init(status: 200, body: Data("first book".utf8))
    }
}

final class StubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
    }
    override func stopLoading() {}
}

final class CatbirdShapesTests: XCTestCase {
    private var catbird: Catbird!
    private var session: URLSession!
    private let url = URL(string: "https://example.com")!

    override func setUp() {
        super.setUp()
        let configuration = Catbird.session.configuration
        configuration.protocolClasses = [StubProtocol.self]
        session = URLSession(configuration: configuration, delegate: nil, delegateQueue: .main)
        catbird = Catbird(url: url, session: session)
    }

    override func tearDown() {
        super.tearDown()
        session.invalidateAndCancel()
    }

    func testParallelId() {
        catbird.parallelId = name
        let actions: [CatbirdAction] = [
            CatbirdAction.remove(BookMock.first),
            CatbirdAction.removeAll,
        ]
        for action in actions {
            XCTAssertThrowsError(try catbird.send(action))
        }
        XCTAssertEqual(catbird.parallelId, name)
        XCTAssertEqual(CatbirdAction.parallelIdHeaderField, "X-Catbird-Parallel-Id")
    }

    func testURLError() {
        XCTAssertThrowsError(try catbird.send(.removeAll)) { (error: Error) in
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, NSURLErrorDomain)
        }
    }

    func testActionsRoundTrip() throws {
        let pattern = RequestPattern(method: .GET, url: "/about")
        let response = ResponseMock(status: 200, body: Data("hello".utf8))
        let action = CatbirdAction.update(pattern, response)
        let data = try JSONEncoder().encode(action)
        XCTAssertEqual(try JSONDecoder().decode(CatbirdAction.self, from: data), action)
        XCTAssertEqual(pattern.method, .GET)
        XCTAssertEqual(pattern.url, PatternMatch.equal("/about"))
        XCTAssertEqual(pattern.headers, [:])
        XCTAssertNil(response.limit)
        XCTAssertNil(response.delay)
    }

    func testPatternMatches() throws {
        let patterns = [PatternMatch.equal("some"), .wildcard("some*"), .regexp("^some$"), PatternMatch(kind: .equal, value: "x")]
        XCTAssertEqual(patterns.map(\.kind), [.equal, .wildcard, .regexp, .equal])
        XCTAssertEqual(PatternMatch.Kind(rawValue: "regexp"), .regexp)
        let headers: [String: PatternRepresentable] = ["Accept": "application/json", "X-Id": PatternMatch.regexp("[0-9]+")]
        let pattern = RequestPattern(method: .POST, url: URL(string: "/books")!, headers: headers)
        XCTAssertEqual(pattern.headers.count, 2)
        XCTAssertEqual("text".pattern, .equal("text"))
        XCTAssertEqual(URL(string: "/a")!.pattern, .equal("/a"))
    }

    func testTheCompletionFormReturnsItsTask() {
        let task: URLSessionTask = catbird.send(.removeAll) { (error: Error?) in
            XCTAssertNotNil(error)
        }
        task.cancel()
        catbird.send(.removeAll) { _ in }
    }
}
