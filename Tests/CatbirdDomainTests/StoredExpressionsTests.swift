@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import Synchronization
import XCTest

/// try9b F14: start-up compiled every stored regular expression before the server listened
/// (18 stored multi-megabyte ones kept a restart down 62 s; one tenant's 20,000 ordinary
/// `^/api/v[0-9]+/items/<i>(\?.*)?$` mocks with an `Accept` regexp, 20 s). Stored mocks now
/// load with their expressions uncompiled; a request compiles just the ones it searches, and
/// the start-up's background pass the rest, one stored before the 64 KiB limit last.
final class StoredExpressionsTests: StorageTestCase {
    private let generated = TenantID("gen")
    private let old = TenantID("rxa0")
    /// 300 KB, stored before the limit; `^/big$` first so that a short target matches it.
    private let long = "^/big$|" + String(repeating: "x", count: 300_000)

    /// Addendum 3's table (scaled to 50 mocks) and one expression longer than the limit,
    /// written to the file as an older server stored it (an update refuses it now).
    private func storeMocks() throws {
        let writing = try mockStore()
        for index in 0..<50 {
            let pattern = RequestPattern(
                method: .GET, url: .regexp("^/api/v[0-9]+/items/\(index)(\\?.*)?$"), headers: ["Accept": .regexp("application/(json|xml)")])
            try writing.update(pattern, response: ResponseMock(status: 200), tenant: generated)
        }
        XCTAssertThrowsError(try writing.update(RequestPattern(method: .GET, url: .regexp(long)), response: ResponseMock(status: 200), tenant: old)) {
            guard case .expressionsTooLong(_, 300_007, 65536)? = $0 as? PatternError else { return XCTFail("\($0)") }
        }
        try writing.update(RequestPattern(method: .GET, url: .regexp("^/big$")), response: ResponseMock(status: 200), tenant: old)
        let other = try Database(path: databasePath(), mode: .readWrite)
        try other.run("UPDATE mocks SET url_value = ? WHERE tenant = 'rxa0'", [.text(long)])
        other.close()
    }

    func testStoredExpressionsLoadUncompiledAndARequestCompilesJustWhatItSearches() throws {
        try storeMocks()
        let loaded = try mockStore()
        let table = loaded.mocks(of: generated)
        XCTAssertEqual(table.count, 50)
        XCTAssertEqual(loaded.mocks(of: old).map(\.pattern.source.url.value), [long])
        XCTAssertFalse((table + loaded.mocks(of: old)).contains { $0.pattern.isCompiled }, "loading compiles no expression")

        let hit = loaded.serve(
            tenant: generated, method: "GET", target: "/api/v3/items/7?q=1", headerValue: { $0 == "Accept" ? "application/json" : nil })
        XCTAssertEqual(hit?.mock.id, table[7].id)
        XCTAssertTrue(table[7].pattern.isCompiled, "the mock that answered: url and header compiled")
        XCTAssertFalse(table[8].pattern.isCompiled, "a mock after the answer: not searched, not compiled")
        XCTAssertFalse(loaded.mocks(of: old)[0].pattern.isCompiled, "another tenant's: not compiled")

        // Within a worker's slice the long one is not compiled: the request goes to the
        // matching lane (outOfTime), where it is.
        var stopped: [Int64] = []
        let sliced = loaded.serve(
            tenant: old, method: "GET", target: "/big", headerValue: { _ in nil }, body: [],
            deadline: .now.advanced(by: RegexpSlice.length), slice: .matching, outOfTime: { stopped.append($0.id) })
        XCTAssertNil(sliced)
        XCTAssertEqual(stopped, loaded.mocks(of: old).map(\.id))
        XCTAssertFalse(loaded.mocks(of: old)[0].pattern.isCompiled)
        XCTAssertNotNil(loaded.serve(tenant: old, method: "GET", target: "/big", headerValue: { _ in nil }, budget: .seconds(60)))
        XCTAssertTrue(loaded.mocks(of: old)[0].pattern.isCompiled)
    }

    func testTheBackgroundPassCompilesEveryStoredExpressionAndStopsWhenAsked() throws {
        try storeMocks()
        let stopped = Atomic<Bool>(true)
        let loaded = try mockStore()
        XCTAssertEqual(loaded.compileStoredExpressions(log: Logger(level: .error), stop: stopped).bytes, 0, "stopped before the first mock")
        let all = loaded.mocks(of: generated) + loaded.mocks(of: old)
        XCTAssertFalse(all.contains { $0.pattern.isCompiled })

        let running = Atomic<Bool>(false)
        let pass = loaded.compileStoredExpressions(log: Logger(level: .error), stop: running)
        // 50 urls and 50 `application/(json|xml)` headers, and the long one.
        let expected = (0..<50).reduce(long.utf8.count) { $0 + "^/api/v[0-9]+/items/\($1)(\\?.*)?$".utf8.count + 22 }
        XCTAssertEqual(pass.bytes, expected)
        XCTAssertTrue(all.allSatisfy { $0.pattern.isCompiled })
        XCTAssertEqual(loaded.compileStoredExpressions(log: Logger(level: .error), stop: running).bytes, 0, "nothing left")
    }
}
