// Habits of 0.11 suites in the wild: methods built from strings, a renamed error domain,
// another module's `HTTPMethod`, helpers on `Catbird`, completion closures touching
// main-actor state, sessions invalidated by tests.
import CatbirdAPI
import Foundation
import OtherHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Methods read from a fixture file as strings.
func pattern(method name: String, url: String) -> RequestPattern {
    let method = RequestPattern.HTTPMethod(name)
    return RequestPattern(method: method, url: url)
}

func customMethods() -> [RequestPattern.HTTPMethod] {
    [RequestPattern.HTTPMethod("PROPFIND"), .GET, .POST, .PUT, .PATCH, .DELETE, RequestPattern.HTTPMethod(rawValue: "HEAD")]
}

/// The app's own networking layer, whose `HTTPMethod` is the other module's.
func endpoint() -> Endpoint {
    let method: HTTPMethod = .get
    return Endpoint(method: method, path: "/feed")
}

func renameTheErrorDomain() {
    CatbirdError.errorDomain = "com.example.uitests.CatbirdErrorDomain"
}

func describe(_ error: Error) -> String {
    guard let catbirdError = error as? CatbirdError else { return "\(error)" }
    let nsError = catbirdError as NSError
    return "\(nsError.domain) \(catbirdError.errorCode) \(catbirdError.errorDescription ?? "") \(catbirdError.failureReason ?? "")"
        + "\(catbirdError.errorUserInfo.count)"
}

/// Suites' helpers on `Catbird`, named like methods this client added later.
extension Catbird {
    func add(_ mock: CatbirdMockConvertible, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try send(.add(mock)), file: file, line: line)
    }

    func mocks() -> [CatbirdMockConvertible] { [] }

    func count(matching mock: CatbirdMockConvertible) -> Int { 0 }

    func clearJournal() {}

    func dropTenant() {}

    func waitForRequest(matching mock: CatbirdMockConvertible, timeout: TimeInterval = 5) -> Bool { true }

    var launchArguments: [String] { ["-url_key", url.absoluteString] }
}

final class HabitsTests: XCTestCase {
    private let catbird = Catbird()
    private var sentCount = 0
    private var lastError: Error?

    func testHelpersNamedLikeTheClientsOwnAreTheSuites() {
        catbird.add(BookMock.first)
        let listed: [CatbirdMockConvertible] = catbird.mocks()
        let counted: Int = catbird.count(matching: BookMock.first)
        catbird.clearJournal()
        catbird.dropTenant()
        XCTAssertTrue(catbird.waitForRequest(matching: BookMock.first))
        XCTAssertEqual(catbird.launchArguments.first, "-url_key")
        XCTAssertEqual(listed.count + counted, 0)
    }

    func testCompletionClosuresTouchTheTestCase() {
        let done = expectation(description: "sent")
        catbird.send(.add(BookMock.first)) { error in
            self.sentCount += 1
            self.lastError = error
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(sentCount, 1)
    }

    func testEverySessionIsNew() {
        Catbird.session.invalidateAndCancel()
        let catbird = Catbird(url: Catbird.localhost, session: Catbird.session)
        XCTAssertThrowsError(try catbird.send(.removeAll))
    }
}

/// A view model on the main actor updated from the completion handler, as 0.11 users wrote.
@MainActor
final class MockPanel {
    var status = "idle"
    private let catbird = Catbird()

    func install(_ mock: CatbirdMockConvertible) {
        catbird.send(.add(mock)) { error in
            self.status = error == nil ? "installed" : "failed"
        }
    }
}
