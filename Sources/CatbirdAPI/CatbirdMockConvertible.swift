import Foundation

/// A mock described by a type of your own, usually an enum of an endpoint's cases:
///
/// ```swift
/// enum LoginMock: CatbirdMockConvertible {
///     case success
///     var pattern: RequestPattern { RequestPattern(method: .POST, url: URL(string: "/login")!) }
///     var response: ResponseMock { ResponseMock(status: 200, body: Data(#"{"token":"abc"}"#.utf8)) }
/// }
/// try catbird.send(.add(LoginMock.success))
/// ```
public protocol CatbirdMockConvertible {
    /// Which requests the mock answers.
    var pattern: RequestPattern { get }

    /// What it answers with.
    var response: ResponseMock { get }
}
