import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// Values and calls the client refuses, or now carries, found by tester44c (a test author
/// using the Swift client against a real server).
final class ClientRefusalTests: CatbirdTestCase {
    /// Tester finding tester44c-F4, its calls: `dropTenant(id: "")`, from an admin client and
    /// from a shard's, emptied the default tenant (every shard's shared fixtures, its journal)
    /// where the server refuses `DELETE /catbird/api/tenants/` with 400. Refused by the client
    /// now, nothing sent; `" \n"` too.
    func testDroppingATenantWithoutAnIdIsRefusedAndTheDefaultTenantKept() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let admin = server.catbird()
        try admin.send(.update(RequestPattern(method: .GET, url: "/default-fixture"), ResponseMock(status: 200)))
        XCTAssertEqual(try server.appRequest("GET", "/default-fixture").status, 200)
        for id in ["", " \n"] {
            let error = assertCatbirdError(400, try admin.dropTenant(id: id))
            XCTAssertTrue(error?.reason?.contains("(refused by the client, nothing sent)") == true, "\(String(describing: error))")
            assertCatbirdError(400, try server.catbird("dropper").dropTenant(id: id))
        }
        XCTAssertEqual(try admin.mocks().count, 1, "the shared fixture is still there")
        XCTAssertEqual(try admin.allRequests().count, 1, "and the default tenant's journal")
        // A shard's id with a line break from a file still names that shard.
        try server.catbird("shard-7").send(.update(RequestPattern(method: .GET, url: "/s"), ResponseMock(status: 200)))
        XCTAssertTrue(try admin.dropTenant(id: "shard-7\n"))
        XCTAssertEqual(try server.catbird("shard-7").mocks().count, 0)
    }

    /// Tester finding tester44c-F5, its values: `equalTo: JSONValue(floatLiteral: .nan)` (and
    /// `.infinity`) was sent as `equalTo: null`, a mock for another value, and counted `{"a":
    /// null}`; `sql(params: [.real(.nan)])` threw a raw `EncodingError`; a `.blob` parameter was
    /// always refused by the server. The non-finite ones are refused by the client now, nothing
    /// sent; a BLOB parameter is bound.
    func testNonFiniteNumbersAreRefusedAndBlobParametersAreBound() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("nan")
        for value in [Double.nan, .infinity] {
            let pattern = RequestPattern(method: .POST, url: "/n", body: .jsonPath("$.a", equalTo: JSONValue(floatLiteral: value)))
            let error = assertCatbirdError(400, try catbird.send(.update(pattern, ResponseMock(status: 200))))
            XCTAssertEqual(
                error?.reason, "'pattern.body.equalTo' is \(value), which JSON cannot carry (it would be sent as null) (refused by the client, nothing sent)")
            assertCatbirdError(400, try catbird.count(matching: pattern))
            let nested = RequestPattern(method: .POST, url: "/n", body: .jsonPath("$.a", equalTo: .object(["x": .array([1, .number(value)])])))
            XCTAssertEqual(
                assertCatbirdError(400, try catbird.send(.update(nested, ResponseMock(status: 200))))?.reason?.hasPrefix("'pattern.body.equalTo.x[1]' is "),
                true)
        }
        let completed = expectation(description: "the completion form gets the refusal")
        let pattern = RequestPattern(method: .POST, url: "/n", body: .jsonPath("$.a", equalTo: JSONValue(floatLiteral: .nan)))
        catbird.send(.update(pattern, ResponseMock(status: 200))) { error in
            XCTAssertEqual((error as? CatbirdError)?.statusCode, 400)
            completed.fulfill()
        }
        wait(for: [completed], timeout: 10)
        XCTAssertEqual(try catbird.mocks().count, 0, "nothing was sent")

        let sqlError = assertCatbirdError(400, try catbird.sql("SELECT ?", params: [.real(.nan)]))
        XCTAssertEqual(sqlError?.reason, "'params[0]' is nan, which JSON cannot carry (refused by the client, nothing sent)")
        XCTAssertEqual(try catbird.sql("SELECT hex(?), typeof(?)", params: [.blob(Data([1, 2])), .blob(Data())]).rows, [["0102", "blob"]])
    }

    /// The `async` form of a refused send throws the same refusal.
    func testARefusedSendThrowsInItsAsyncFormToo() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let pattern = RequestPattern(method: .POST, url: "/n", body: .jsonPath("$.a", equalTo: .number(.infinity)))
        await assertCatbirdErrorAsync(400) { try await server.catbird("nan").send(.update(pattern, ResponseMock(status: 200))) }
    }

    /// Tester finding tester44c-F7, its case: another process holds the database's write lock
    /// (here 8 s). The client's 5-second timeout was exactly the server's 5-second wait before
    /// its 503, so `send` always ended in a bare `URLError` timeout; the test now gets the
    /// server's reason.
    func testAChangeWhileAnotherProcessHoldsTheLockGetsTheServersReason() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let python = try SQLiteWriteLock.hold(server.databasePath, seconds: 8)
        defer { if python.isRunning { python.terminate() }; python.waitUntilExit() }
        let error = assertCatbirdError(
            503, try server.catbird("lk").send(.update(RequestPattern(method: .GET, url: "/a"), ResponseMock(status: 200))))
        XCTAssertTrue(error?.reason?.contains("the database is busy") == true, "\(String(describing: error))")
    }
}
