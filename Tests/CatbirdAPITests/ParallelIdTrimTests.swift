import CatbirdAPI
import CatbirdAppSupport
import CatbirdTestSupport
import Foundation
import XCTest

/// The parallel id is trimmed by the rule the app side and the server share, so the test side,
/// the app and the tenant's drop all address one tenant (tester findings T18C-F7, T18C-F8).
final class ParallelIdTrimTests: CatbirdTestCase {
    /// T18C-F7: `"t18c-trailing-newline\n"` (an id read from a file) made the transport drop
    /// the header without an error: the mock went to the default tenant and the drop was
    /// sent as the admin.
    func testATrailingLineBreakIsNotPartOfTheId() async throws {
        let server = try TestServer()
        let client = server.catbird("t18c-trailing-newline\n")
        XCTAssertEqual(client.parallelId, "t18c-trailing-newline")
        try client.send(.update(RequestPattern(method: .GET, url: "/nl"), ResponseMock(status: 200)))
        let mocks = try await client.mocks()
        XCTAssertEqual(mocks.count, 1)
        let defaultMocks = try await server.catbird().mocks()
        XCTAssertEqual(defaultMocks.count, 0, "nothing reaches the default tenant")
        let ids = try await server.catbird().tenants().map(\.id)
        XCTAssertTrue(ids.contains("t18c-trailing-newline"), "\(ids)")
        XCTAssertEqual(try server.appRequest("GET", "/nl", parallelId: "t18c-trailing-newline").status, 200)
        let dropped = try await client.dropTenant()
        XCTAssertTrue(dropped)
    }

    /// T18C-F8: `" t18c-sp "` put the mocks in `t18c-sp` (the server trims the header) but
    /// dropped `%20t18c-sp%20`, which the server refused with 403 as another tenant.
    func testSpacesAroundTheIdAddressTheSameTenantForTheDrop() async throws {
        let server = try TestServer()
        let spaced = server.catbird(" t18c-sp ")
        XCTAssertEqual(spaced.parallelId, "t18c-sp")
        try spaced.send(.update(RequestPattern(method: .GET, url: "/sp"), ResponseMock(status: 200)))
        let dropped = try await spaced.dropTenant()
        XCTAssertTrue(dropped)
        let left = try await server.catbird("t18c-sp").mocks()
        XCTAssertEqual(left.count, 0)
        let again = try await spaced.dropTenant()
        XCTAssertFalse(again, "already gone")
    }

    /// A trimmed id set later reads back trimmed too; `""` is still the default tenant.
    func testTheSetterTrimsToo() {
        let client = Catbird(url: URL(string: "http://127.0.0.1:1")!, parallelId: nil)
        client.parallelId = "\tshard-2\r\n"
        XCTAssertEqual(client.parallelId, "shard-2")
        client.parallelId = ""
        XCTAssertNil(client.parallelId)
    }

    /// The test side hands the app the id the app reads: one tenant on both sides.
    func testTheAppReadsTheIdTheTestSideSends() throws {
        let client = Catbird(url: URL(string: "http://127.0.0.1:8080")!, parallelId: " t18c-sp\n")
        XCTAssertEqual(client.launchArguments, ["-catbird_url", "http://127.0.0.1:8080", "-catbird_parallel_id", "t18c-sp"])
        let app = try XCTUnwrap(CatbirdAppConfiguration(arguments: client.launchArguments, environment: [:]))
        XCTAssertEqual(app.parallelId, client.parallelId)
        let raw = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["-catbird_url", "http://127.0.0.1:8080", "-catbird_parallel_id", " t18c-sp\n"], environment: [:]))
        XCTAssertEqual(raw.parallelId, "t18c-sp")
    }
}
