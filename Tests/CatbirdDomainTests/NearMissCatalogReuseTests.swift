@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// A change of a large table costs the next 404 the mocks it changed, not the whole table: the
/// next version's near-miss catalog is built from the last one built (`NearMissCatalog(_:reusing:)`,
/// docs/matching.md#near-misses; tester finding try10b F10: with 10,000 mocks in a tenant, every
/// update made the next 404 build the catalogs anew on the matching lane, 0.4-0.5 s each time,
/// so a suite alternating updates and misses paid it on every miss). The catalog so built is
/// the one a build from scratch gives, part for part, so the near misses are the same.
final class NearMissCatalogReuseTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-catalog-reuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func store() throws -> MockStore {
        let connection = try Database(path: directory.appendingPathComponent("reuse.sqlite").path, mode: .readWrite)
        _ = try Schema.migrate(connection)
        return try MockStore(database: SerialDatabase(connection))
    }

    /// The finding's kind of mock: `GET equal "/api/v1/items/<i>/detail"` with header `X-Shard: equal "s<i % 7>"`.
    private func item(_ index: Int, url: String? = nil) -> RequestPattern {
        RequestPattern(
            method: .GET, url: .equal(url ?? "/api/v1/items/\(index)/detail"), headers: ["X-Shard": .equal("s\(index % 7)")])
    }

    /// Every part of `catalog`, as text: equal texts, equal catalogs.
    private func parts(_ catalog: NearMissCatalog) -> [String] {
        [
            "\(catalog.mocks.map(\.id))",
            "\(Array(catalog.bounds).map { "\($0)" })",
            "\(Array(catalog.urls))",
            "\(Array(catalog.blocks).map { "\($0)" })",
            "\(Array(catalog.groups).map { "\($0)" })",
            "\(Array(catalog.groupBlocks))", "\(Array(catalog.groupByOrder))",
            "\(Array(catalog.columnBytes))", "\(Array(catalog.columnEnds))",
            "\(catalog.sharedFields.map { "\($0.key)" })", "\(Array(catalog.sharedFieldIndexes))",
        ]
    }

    /// The tenant's catalog as a 404 gets it now, checked against one built from scratch.
    @discardableResult
    private func checkCatalog(_ mocks: MockStore, _ tenant: TenantID, _ step: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> NearMissCatalog
    {
        let table = try XCTUnwrap(mocks.table(of: tenant))
        let catalog = table.nearMissView(for: "/api/v1/itemz/5/detail").catalog
        let scratch = NearMissCatalog(table.read { $0.byID.values })
        XCTAssertEqual(scratch.blocksTakenOver, 0)
        for (built, expected) in zip(parts(catalog), parts(scratch)) {
            XCTAssertEqual(built, expected, "\(step): the catalog built from the last one is the one built from scratch", file: file, line: line)
        }
        let miss = NearMissTestRequest(method: "GET", target: "/api/v1/itemz/5/detail", headers: ["x-shard": "s5"], body: [])
        let report = mocks.nearMisses(
            tenant: tenant, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body, timeLimit: nil)
        XCTAssertEqual(
            report.closest.map(\.mock.id), mocks.exhaustiveNearMisses(tenant: tenant, miss).map(\.id), "\(step)", file: file, line: line)
        return catalog
    }

    func testAChangedTablesCatalogIsBuiltFromTheLastOneAndIsTheSame() throws {
        let mocks = try store()
        let tenant = TenantID("big")
        for index in 0..<3000 { _ = try mocks.update(item(index), response: ResponseMock(status: 200), tenant: tenant) }
        let first = try checkCatalog(mocks, tenant, "the first 404")
        XCTAssertEqual(first.blocksTakenOver, 0, "nothing to take over yet")

        // An update of a new url (another group): every other block is taken over.
        _ = try mocks.update(item(0, url: "/api/v1/changed/0"), response: ResponseMock(status: 200), tenant: tenant)
        let added = try checkCatalog(mocks, tenant, "after adding a mock of a new group")
        XCTAssertEqual(added.blocksTakenOver, first.blocks.count, "every block of the 3,000 mocks is taken over")

        // A mock replaced in place (same pattern, new response): all but its own block.
        _ = try mocks.update(item(1500), response: ResponseMock(status: 201), tenant: tenant)
        let replaced = try checkCatalog(mocks, tenant, "after replacing a mock in place")
        XCTAssertEqual(replaced.blocksTakenOver, replaced.blocks.count - 1)

        // A mock removed from the middle of the largest group, then one added to it: the
        // blocks before it in its group and every other group's are taken over. The groups
        // (GET, by url length; urls of one length sort as their numbers): items 0-9 (1 block),
        // 10-99 (6), 100-999 (57), 1000-2999 (125) and the changed url (1): 65 blocks besides
        // the largest group's. Item 1234 is that group's 235th mock, in its 15th block, so
        // its first 14 blocks are taken over and the 111 from there on (their mocks moved
        // up by one) are built anew.
        XCTAssertTrue(try mocks.remove(item(1234), tenant: tenant))
        let removed = try checkCatalog(mocks, tenant, "after removing a mock")
        XCTAssertEqual(removed.blocks.count, 1 + 6 + 57 + 125 + 1)
        XCTAssertEqual(removed.blocksTakenOver, 65 + 14, "every other group's blocks and the 14 before the removed mock's")
        // `/api/v1/items/1234/detaiX` sorts where item 1234 was (`X` before `l`): the same 14
        // blocks before it, and none from its block on (each holds other mocks than before).
        _ = try mocks.update(item(7, url: "/api/v1/items/1234/detaiX"), response: ResponseMock(status: 200), tenant: tenant)
        let inserted = try checkCatalog(mocks, tenant, "after adding a mock to the largest group")
        XCTAssertEqual(inserted.blocks.count, 1 + 6 + 57 + 125 + 1)
        XCTAssertEqual(inserted.blocksTakenOver, 65 + 14, "every other group's blocks and the 14 before the added mock's")

        // Several changes between two 404s: built from the last catalog built all the same.
        for index in 0..<20 { _ = try mocks.update(item(index * 97), response: ResponseMock(status: 202), tenant: tenant) }
        XCTAssertTrue(try mocks.remove(item(2999), tenant: tenant))
        try checkCatalog(mocks, tenant, "after 21 changes")

        // A table cleared starts anew.
        try mocks.removeAll(tenant: tenant)
        for index in 0..<1200 { _ = try mocks.update(item(index), response: ResponseMock(status: 200), tenant: tenant) }
        XCTAssertEqual(try checkCatalog(mocks, tenant, "after removeAll").blocksTakenOver, 0)
    }

    /// Regression: a table of 1,000 mocks or more kept the catalog its current one was built
    /// from until its next change, two catalogs alive at once (100-150 bytes a mock each). It
    /// goes once the new one is built; the new one is kept for the next change.
    func testTheCatalogANewOneWasBuiltFromIsLetGo() throws {
        let mocks = try store()
        let tenant = TenantID("big")
        for index in 0..<1500 { _ = try mocks.update(item(index), response: ResponseMock(status: 200), tenant: tenant) }
        weak let first = try checkCatalog(mocks, tenant, "the first 404")
        let firstBlocks = try XCTUnwrap(first?.blocks.count, "the current catalog is kept")
        _ = try mocks.update(item(0, url: "/api/v1/changed/0"), response: ResponseMock(status: 200), tenant: tenant)
        XCTAssertNotNil(first, "kept after the change, to build the next one from")
        weak let second = try checkCatalog(mocks, tenant, "after a change")
        XCTAssertEqual(second?.blocksTakenOver, firstBlocks, "built from the first")
        XCTAssertNil(first, "the first catalog is let go once the second is built")
        let secondBlocks = try XCTUnwrap(second?.blocks.count, "the current one is kept")
        _ = try mocks.update(item(1, url: "/api/v1/other/1"), response: ResponseMock(status: 200), tenant: tenant)
        XCTAssertEqual(try checkCatalog(mocks, tenant, "after a second change").blocksTakenOver, secondBlocks, "built from the second")
    }
}
