import CatbirdAPI
import CatbirdTestSupport
import XCTest

/// The login flow of Catbird 0.11's README: success leads to the main screen, a blocked user
/// sees the error.
final class LoginUITests: FeedAppUITestCase {
    func testLogin() throws {
        try catbird.send(.add(LoginMock.success))

        XCTAssertEqual(try launchApp("login", "john@example.com", "qwerty"), ["Main Screen"])

        let logins = try journaled(.POST, "/login")
        XCTAssertEqual(logins.count, 1)
        XCTAssertEqual(logins.first.map { jsonObject($0.request.body) }, ["login": "john@example.com", "password": "qwerty"])
    }

    func testBlockedUserError() throws {
        try catbird.send(.add(LoginMock.blockedUserError))

        XCTAssertEqual(try launchApp("login", "peter@example.com", "burger"), ["Error: user blocked"])
        XCTAssertEqual(try catbird.count(matching: LoginMock.blockedUserError), 1)
    }

    func testWithoutAMockTheAppShowsTheServersError() throws {
        XCTAssertEqual(try launchApp("login", "nobody@example.com", "x"), ["Error: 404"])
        XCTAssertEqual(try journaled(.POST, "/login").first?.answeredBy, .unanswered)
    }
}
