#if canImport(XCTest)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension Catbird {
    /// One XCTest test's own tenant: a parallel id made from the test and the simulator clone
    /// that runs it, emptied when the test starts and dropped (mocks and journal) in its
    /// tear-down, so that tests running at the same time on parallel clones, and tests that run
    /// one after another, never see each other's mocks or requests.
    ///
    /// ```swift
    /// final class LoginUITests: XCTestCase {
    ///     private var tenant: Catbird.TestTenant!
    ///
    ///     override func setUpWithError() throws {
    ///         tenant = try Catbird.TestTenant(for: self)        // http://127.0.0.1:8080
    ///     }
    ///
    ///     @MainActor                                            // XCUIApplication is main-actor isolated
    ///     func testLogin() async throws {
    ///         try await tenant.send(.add(LoginMock.success))
    ///         let app = XCUIApplication()
    ///         tenant.apply(to: app)                              // -catbird_url … -catbird_parallel_id …
    ///         app.launch()
    ///         // … log in …
    ///         let login = try await tenant.waitForRequest(matching: LoginMock.success, timeout: 10)
    ///         XCTAssertEqual(login.response.status, 200)
    ///     }
    /// }
    /// ```
    ///
    /// ``catbird`` is the client scoped to the tenant, for everything else (count, journal, SQL).
    /// The helper exists where XCTest does; ``apply(to:)`` where `XCUIApplication` does.
    public final class TestTenant: Sendable {
        /// The client, scoped to this test's tenant.
        public let catbird: Catbird

        /// The tenant's parallel id, such as `LoginUITests.testLogin@6E2C…` (see
        /// ``parallelId(for:clone:)``).
        public var parallelId: String { catbird.parallelId ?? "" }

        /// This test's tenant on the server at `url`: drops whatever an earlier run of the same
        /// test left in it (an interrupted run skips its tear-down), and registers a tear-down
        /// block on `testCase` that drops it again (a failure to drop is reported as a test
        /// failure).
        ///
        /// - Parameters:
        ///   - testCase: the running test (`self` in `setUp`).
        ///   - url: the server; ``Catbird/localhost`` by default.
        ///   - session: the session; nil (the default) for a client made without one
        ///     (``Catbird/init(url:parallelId:)``: ``Catbird/session``'s behaviour, no session
        ///     of its own).
        ///   - clone: what tells parallel runners apart; ``currentClone`` by default.
        /// - Throws: ``CatbirdError`` or `URLError` when the server cannot drop the tenant
        ///   (not running, for example).
        public init(
            for testCase: XCTestCase, url: URL = Catbird.localhost, session: URLSession? = nil,
            clone: String? = TestTenant.currentClone
        ) throws {
            let parallelId = Self.parallelId(for: testCase, clone: clone)
            let catbird = session.map { Catbird(url: url, session: $0, parallelId: parallelId) } ?? Catbird(url: url, parallelId: parallelId)
            self.catbird = catbird
            try catbird.dropTenant()
            testCase.addTeardownBlock {
                do {
                    try catbird.dropTenant()
                } catch {
                    XCTFail("Catbird could not drop the test's tenant \(catbird.parallelId ?? ""): \(error)")
                }
            }
        }

        /// What tells apart runners that may run the same test at the same time against one
        /// server: the simulator clone's `SIMULATOR_UDID` (each clone of parallel testing has
        /// its own), else this process's id and a random token made once per process
        /// (`pid-1234-5f3a9c21`). The token tells apart processes of other machines and
        /// containers with the same pid (tester finding tester44c-F1: every container's test
        /// process was `pid-1`, so eight containerised shards shared one tenant and emptied each
        /// other's mocks and journal).
        public static var currentClone: String {
            ProcessInfo.processInfo.environment["SIMULATOR_UDID"].flatMap { $0.isEmpty ? nil : $0 }
                ?? "pid-\(ProcessInfo.processInfo.processIdentifier)-\(processToken)"
        }

        /// Eight hex digits, random, the same for the whole process.
        private static let processToken = String(format: "%08x", UInt32.random(in: .min ... .max))

        /// `<TestClass>.<testMethod>@<clone>` (`@<clone>` left out when `clone` is nil), with
        /// every character other than ASCII letters, digits and `.`, `_`, `-`, `@` replaced by
        /// `-`, so the id is a plain header value and path segment. Reads XCTest's names on
        /// Apple platforms (`-[LoginUITests testLogin]`) and on Linux (`LoginUITests.testLogin`).
        public static func parallelId(for testCase: XCTestCase, clone: String?) -> String {
            let className = String(describing: type(of: testCase))
            var method = testCase.name
            if method.hasPrefix("-["), method.hasSuffix("]") {
                method = String(method.dropFirst(2).dropLast())
            }
            if let separator = method.lastIndex(where: { $0 == " " || $0 == "." }) {
                method = String(method[method.index(after: separator)...])
            }
            let id = "\(className).\(method)" + (clone.map { "@\($0)" } ?? "")
            return String(id.unicodeScalars.map { Self.allowed.contains($0) ? Character($0) : "-" })
        }

        private static let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-@")

        /// Sends a mock change to the test's tenant (`POST /catbird/api/mocks`) and returns once
        /// the server committed it.
        ///
        /// - Throws: ``CatbirdError`` when the server refuses the change, `URLError` on a
        ///   transport failure or cancellation.
        @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
        public func send(_ action: CatbirdAction) async throws {
            try await catbird.perform(APICall.send(action))
        }

        /// Sends a mock change to the test's tenant and waits for the server to commit it.
        ///
        /// - Throws: ``CatbirdError`` when the server refuses the change, `URLError` on a
        ///   transport failure or timeout.
        public func send(_ action: CatbirdAction) throws {
            try catbird.send(action)
        }

        /// The launch arguments that point the app at the server and this tenant (see
        /// ``Catbird/launchArguments``).
        public var launchArguments: [String] { catbird.launchArguments }
    }
}

#if os(iOS) || os(macOS) || os(tvOS) || os(visionOS) || CATBIRD_UI_TESTING_STAND_IN
extension Catbird.TestTenant {
    /// Adds ``launchArguments`` to the app's launch arguments (before `launch()`), so that
    /// `CatbirdAppSupport` in the app sends every request to this tenant.
    @MainActor
    public func apply(to app: XCUIApplication) {
        app.launchArguments += launchArguments
    }
}
#endif
#endif
