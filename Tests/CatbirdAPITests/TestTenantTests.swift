import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `Catbird.TestTenant`, the per-test tenant helper, and the admin calls it relies on, against
/// a real server.
final class TestTenantTests: CatbirdTestCase {
    /// A server that outlives the test method: the tenant's tear-down block, which runs after
    /// the method and before `tearDown()`, still reaches it.
    private var server: TestServer?

    override func tearDown() {
        server?.removeFiles()
        server = nil
        super.tearDown()
    }
    func testTheParallelIdNamesTheTestAndTheClone() {
        XCTAssertEqual(
            Catbird.TestTenant.parallelId(for: self, clone: "6E2C-SIM"),
            "TestTenantTests.testTheParallelIdNamesTheTestAndTheClone@6E2C-SIM")
        XCTAssertEqual(
            Catbird.TestTenant.parallelId(for: self, clone: nil), "TestTenantTests.testTheParallelIdNamesTheTestAndTheClone")
        XCTAssertEqual(
            Catbird.TestTenant.parallelId(for: self, clone: "a b/ü"), "TestTenantTests.testTheParallelIdNamesTheTestAndTheClone@a-b--",
            "only plain characters: a header value and path segment as is")
        let clone = Catbird.TestTenant.currentClone
        if let simulator = ProcessInfo.processInfo.environment["SIMULATOR_UDID"], !simulator.isEmpty {
            XCTAssertEqual(clone, simulator)
        } else {
            // Tester finding tester44c-F1: `pid-1` in every container; a per-process token now.
            let prefix = "pid-\(ProcessInfo.processInfo.processIdentifier)-"
            XCTAssertTrue(clone.hasPrefix(prefix), clone)
            let token = clone.dropFirst(prefix.count)
            XCTAssertEqual(token.count, 8, clone)
            XCTAssertTrue(token.allSatisfy(\.isHexDigit), clone)
            XCTAssertEqual(Catbird.TestTenant.currentClone, clone, "the same for the whole process")
        }
    }

    /// Tester finding tester44c-F1: the clone's token differs between processes (containers
    /// whose test processes are all pid 1 shared one tenant). Two children, this test binary run
    /// again for ``testWriteTheCloneInAChild()`` alone, each write their clone; the tokens differ.
    func testTwoProcessesGetDifferentCloneTokens() throws {
        guard ProcessInfo.processInfo.environment["SIMULATOR_UDID"]?.isEmpty ?? true else {
            throw XCTSkip("the clone is the simulator's id here")
        }
        let clones = try (0..<2).map { _ in try Self.cloneOfAChild() }
        for clone in clones {
            XCTAssertNotNil(clone.range(of: "^pid-[0-9]+-[0-9a-f]{8}$", options: .regularExpression), clone)
        }
        let tokens = clones.map { $0.split(separator: "-").last.map(String.init) ?? "" }
        XCTAssertNotEqual(tokens[0], tokens[1], "\(clones)")
        XCTAssertFalse(tokens.contains(String(Catbird.TestTenant.currentClone.split(separator: "-").last ?? "")), "\(clones)")
    }

    /// The child: writes ``Catbird/TestTenant/currentClone`` to the file its parent names.
    /// Skipped unless run by ``testTwoProcessesGetDifferentCloneTokens()``.
    func testWriteTheCloneInAChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.cloneFileVariable], !path.isEmpty else {
            throw XCTSkip("runs only as the child of testTwoProcessesGetDifferentCloneTokens")
        }
        try Catbird.TestTenant.currentClone.write(toFile: path, atomically: true, encoding: .utf8)
    }

    private static let cloneFileVariable = "CATBIRD_TEST_CLONE_FILE"

    /// Runs this test binary for ``testWriteTheCloneInAChild()`` and reads what it wrote.
    private static func cloneOfAChild() throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-clone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["CatbirdAPITests.TestTenantTests/testWriteTheCloneInAChild"]
        child.environment = ProcessInfo.processInfo.environment.merging([cloneFileVariable: file.path]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0)
        return try String(contentsOf: file, encoding: .utf8)
    }

    func testATestsTenantStartsEmptyServesItsMocksAndIsDroppedInTearDown() throws {
        #if os(Linux)
        let server = try TestServer()
        defer { server.removeFiles() }
        let admin = server.catbird()
        let id = "TenantProbe.testProbe@sim-1"
        // What an interrupted earlier run of the same test left behind.
        let leftover = server.catbird(id)
        try leftover.send(.add(LoginMock.blockedUserError))
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: id).status, 400)
        XCTAssertEqual(try admin.tenants().first { $0.id == id }?.requests, 1)

        let seen = Locked<[String]>([])
        let probe = TenantProbe(name: "testProbe") { testCase in
            let tenant = try Catbird.TestTenant(for: testCase, url: server.baseURL, clone: "sim-1")
            seen.append(tenant.parallelId)
            XCTAssertEqual(try tenant.catbird.mocks().count, 0, "the leftover mock was dropped")
            XCTAssertEqual(try tenant.catbird.allRequests().count, 0, "and the leftover journal")
            try tenant.send(.add(LoginMock.success))
            XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: tenant.parallelId).status, 200)
            XCTAssertEqual(tenant.launchArguments, ["-catbird_url", server.baseURL.absoluteString, "-catbird_parallel_id", id])
            seen.append("tenants: \(try admin.tenants().map(\.id).sorted())")
        }
        probe.run()
        XCTAssertEqual(probe.testRun?.totalFailureCount, 0, "the probe test passed")
        XCTAssertEqual(seen.value, [id, "tenants: [\"\", \"\(id)\"]"])
        XCTAssertEqual(try admin.tenants().map(\.id), [""], "the tear-down dropped the test's tenant")
        #else
        throw XCTSkip("runs a nested XCTestCase with XCTest's Linux initializer")
        #endif
    }

    func testTheAsyncSendReachesTheTenant() async throws {
        let server = try TestServer()
        self.server = server
        let tenant = try Catbird.TestTenant(for: self, url: server.baseURL, clone: "async")
        try await tenant.send(.add(LoginMock.success))
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: tenant.parallelId).status, 200)
        await assertCatbirdErrorAsync(400) {
            try await tenant.send(.update(RequestPattern(method: .GET, url: PatternMatch.regexp("(")), ResponseMock()))
        }
        let listed = try await tenant.catbird.tenants().map(\.id)
        XCTAssertEqual(listed, [tenant.parallelId], "a shard's client lists its own tenant (tester48c-F2)")
        try server.catbird().send(.add(LoginMock.blockedUserError))  // the default tenant's, untouched by the tear-down
    }

    /// tester48c-F2, its calls: a shard's client (`parallelId: "attacker"`) listed every
    /// tenant and dropped the tenant "victim", its mocks and journal, on a server without an
    /// admin token: `tenants()` and `dropTenant(id:)` were sent without its parallel id. They
    /// now act as the shard, as every other call does.
    func testAShardsClientListsAndDropsOnlyItsOwnTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let victim = server.catbird("victim")
        try victim.send(.update(RequestPattern(method: .GET, url: "/v"), ResponseMock()))
        XCTAssertEqual(try server.appRequest("GET", "/v", parallelId: "victim").status, 200)
        let shard = server.catbird("attacker")
        try shard.send(.add(LoginMock.success))
        XCTAssertEqual(try shard.tenants().map(\.id), ["attacker"])
        let refused = assertCatbirdError(403, try shard.dropTenant(id: "victim"))
        XCTAssertTrue(refused?.reason?.contains("may act on only its own tenant") == true, String(describing: refused))
        XCTAssertEqual(try victim.mocks().count, 1, "the other shard's mocks are kept")
        XCTAssertEqual(try victim.allRequests().count, 1, "and its journal")
        XCTAssertEqual(try server.catbird().tenants().map(\.id), ["", "attacker", "victim"])
        // Its own tenant it drops, by id as with dropTenant().
        XCTAssertTrue(try shard.dropTenant(id: "attacker"))
        XCTAssertEqual(try server.catbird().tenants().map(\.id), ["", "victim"])
    }

    /// tester48c-F2, the `async` forms.
    func testAShardsClientListsAndDropsOnlyItsOwnTenantAsync() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try server.catbird("victim").send(.update(RequestPattern(method: .GET, url: "/v"), ResponseMock()))
        let shard = server.catbird("attacker")
        try shard.send(.add(LoginMock.success))
        let listed = try await shard.tenants().map(\.id)
        XCTAssertEqual(listed, ["attacker"])
        await assertCatbirdErrorAsync(403) { try await shard.dropTenant(id: "victim") }
        let victimMocks = try await server.catbird("victim").mocks()
        XCTAssertEqual(victimMocks.count, 1, "the other shard's mocks are kept")
    }

    func testTheAdminListsAndDropsAnyTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try server.catbird("shard-a").send(.add(LoginMock.success))
        try server.catbird("shard-b").send(.add(LoginMock.success))
        _ = try server.appRequest("POST", "/login", parallelId: "shard-b")
        let admin = server.catbird()
        let tenants = try admin.tenants()
        XCTAssertEqual(tenants.map(\.id), ["", "shard-a", "shard-b"])
        XCTAssertEqual(tenants.map(\.mocks), [0, 1, 1])
        XCTAssertEqual(tenants.map(\.requests), [0, 0, 1])
        XCTAssertEqual(try admin.dropTenant(id: "shard-b"), true)
        XCTAssertEqual(try admin.tenants().map(\.id), ["", "shard-a"])
        XCTAssertFalse(try admin.dropTenant(id: "shard-b"), "no such tenant any more")
        try server.catbird().send(.add(LoginMock.success))
        // An id that names no tenant is refused (tester44c-F4); the default tenant is emptied
        // by dropTenant() on a client without a parallel id.
        assertCatbirdError(400, try admin.dropTenant(id: ""))
        assertCatbirdError(400, try server.catbird("shard-a").dropTenant(id: ""))
        XCTAssertEqual(try server.catbird().mocks().count, 1)
        XCTAssertEqual(try server.catbird().dropTenant(), true, "the default tenant is emptied")
        XCTAssertEqual(try server.catbird().mocks().count, 0)
    }

    /// T16-F3: the ids "." and ".." travelled as dot segments, which URL resolution removes:
    /// `dropTenant(id: "..")` sent `DELETE /catbird/api/` (404, read as "no such tenant") and
    /// `dropTenant(id: ".")` sent `DELETE /catbird/api/tenants/` (400).
    func testTheAdminDropsTenantsNamedByDotsAlone() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        for id in [".", ".."] { try server.catbird(id).send(.add(LoginMock.success)) }
        let admin = server.catbird()
        XCTAssertEqual(try admin.tenants().map(\.id), ["", ".", ".."])
        XCTAssertTrue(try admin.dropTenant(id: ".."))
        XCTAssertEqual(try admin.tenants().map(\.id), ["", "."])
        XCTAssertTrue(try admin.dropTenant(id: "."))
        XCTAssertEqual(try admin.tenants().map(\.id), [""])
        XCTAssertFalse(try admin.dropTenant(id: "."), "no such tenant any more")
    }

    func testTheAdminCallsSendTheAdminToken() throws {
        let server = try TestServer { $0.adminToken = "s3cret-token" }
        defer { server.removeFiles() }
        try server.catbird("shard-a").send(.add(LoginMock.success))
        let admin = server.catbird()
        // try10a F14: without the token (or with a wrong one) the server lists the default
        // tenant's row alone with "admin": false; that was returned as the whole list.
        admin.adminToken = nil
        assertCatbirdError(401, try admin.tenants())
        admin.adminToken = "wrong"
        assertCatbirdError(401, try admin.tenants())
        assertCatbirdError(401, try admin.dropTenant(id: "shard-a"))
        admin.adminToken = "s3cret-token"
        XCTAssertEqual(try admin.tenants().map(\.id), ["", "shard-a"])
        XCTAssertTrue(try admin.dropTenant(id: "shard-a"))
        // A test's own tenant needs no token: a shard may drop itself.
        let shard = server.catbird("shard-b")
        shard.adminToken = nil
        try shard.send(.add(LoginMock.success))
        XCTAssertTrue(try shard.dropTenant())
        // The default tenant's mocks (shared fixtures) are the admin's: sent with the token
        // (try9b F5), refused without it.
        try admin.send(.add(LoginMock.success))
        admin.adminToken = nil
        assertCatbirdError(401, try admin.send(.removeAll))
        try shard.send(.removeAll)  // a shard's own mocks need no token
        // So is the default tenant's journal (T14B-F9); a shard clears its own without a token,
        // and the default tenant is dropped (removeAll, then the journal) with the token.
        assertCatbirdError(401, try admin.clearJournal())
        XCTAssertEqual(try shard.clearJournal(), 0)
        admin.adminToken = "s3cret-token"
        XCTAssertEqual(try admin.clearJournal(), 0)
        XCTAssertTrue(try admin.dropTenant())
        XCTAssertEqual(try admin.mocks().count, 0)
    }

    func testTheUITestingBranchTypechecks() throws {
        // `apply(to:)` exists where XCUIApplication does; here the whole CatbirdAPI source is
        // typechecked with that branch on and a stand-in XCUIApplication.
        let folder = try SwiftCompiler.scratchFolder("catbird-ui-branch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let standIn = folder.appendingPathComponent("XCUIApplicationStandIn.swift")
        try """
            @MainActor open class XCUIApplication {
                public var launchArguments: [String] = []
                public init() {}
            }
            @MainActor func use(_ tenant: Catbird.TestTenant) {
                let app = XCUIApplication()
                tenant.apply(to: app)
            }
            """.write(to: standIn, atomically: true, encoding: .utf8)
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources/CatbirdAPI")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.map { sources.appendingPathComponent($0).path } ?? []
        XCTAssertTrue(files.contains { $0.hasSuffix("Catbird+TestTenant.swift") }, "\(files)")
        let result = try SwiftCompiler.run(
            ["-typecheck", "-parse-as-library", "-swift-version", "6", "-warnings-as-errors", "-module-name", "CatbirdAPI",
             "-I", try SwiftCompiler.modulesDirectory().path, "-D", "CATBIRD_UI_TESTING_STAND_IN", standIn.path] + files)
        XCTAssertEqual(result.status, 0, result.output)
    }
}

#if os(Linux)
/// A test case run inside a test, to see what happens around it (its tear-down blocks).
private final class TenantProbe: XCTestCase, @unchecked Sendable {
    // @unchecked Sendable: made and run on one thread by the enclosing test.
    convenience init(name: String, body: @escaping (XCTestCase) throws -> Void) {
        self.init(name: name, testClosure: { try body($0) })
    }
}
#endif
