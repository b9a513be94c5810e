import CatbirdAPI
import Foundation

/// The posts a feed mock serves, as the backend's JSON.
struct Post: Codable, Equatable {
    var id: Int
    var author: String
    var text: String
}

/// The feed screen's backend, as the test's mocks (the README's CatbirdMockConvertible style).
enum FeedMock: CatbirdMockConvertible {
    case posts([Post])

    var pattern: RequestPattern {
        RequestPattern(method: .GET, url: "/api/feed")
    }

    var response: ResponseMock {
        switch self {
        case let .posts(posts):
            return try! .json(["posts": posts])
        }
    }
}

/// `POST /api/createPost` answering with the created post.
enum CreatePostMock: CatbirdMockConvertible {
    case created(Post)

    var pattern: RequestPattern {
        RequestPattern(method: .POST, url: "/api/createPost", headers: ["Content-Type": PatternMatch.wildcard("application/json*")])
    }

    var response: ResponseMock {
        switch self {
        case let .created(post):
            return try! .json(["post": post], status: 201)
        }
    }
}

/// The login endpoint, as in Catbird 0.11's README.
enum LoginMock: CatbirdMockConvertible {
    case success
    case blockedUserError

    var pattern: RequestPattern {
        RequestPattern(method: .POST, url: URL(string: "/login")!)
    }

    var response: ResponseMock {
        switch self {
        case .success:
            let json: [String: Any] = ["data": ["access_token": "abc", "refresh_token": "xyz", "expired_in": "123"]]
            return ResponseMock(
                status: 200, headers: ["Content-Type": "application/json"],
                body: try! JSONSerialization.data(withJSONObject: json))
        case .blockedUserError:
            let json: [String: Any] = ["error": ["code": "user_blocked", "message": "user blocked"]]
            return ResponseMock(
                status: 400, headers: ["Content-Type": "application/json"],
                body: try! JSONSerialization.data(withJSONObject: json))
        }
    }
}
