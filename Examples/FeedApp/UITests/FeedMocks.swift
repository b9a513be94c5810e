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
