import CatbirdAppSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A post as the backend sends it.
struct Post: Decodable {
    let id: Int
    let author: String
    let text: String
}

/// The feed app's backend API. In production it talks to ``productionBaseURL``; when the UI
/// test handed over a Catbird server (launch arguments or environment), every request is
/// redirected there, with the test shard's `X-Catbird-Parallel-Id`.
struct FeedClient {
    /// The real backend (made up: it does not exist, so the app only works against Catbird).
    static let productionBaseURL = URL(string: "https://api.feed.example")!

    /// The Catbird server the UI test handed over, or nil in production.
    let catbird: CatbirdAppConfiguration?
    private let transport: Transport

    init(catbird: CatbirdAppConfiguration?) {
        self.catbird = catbird
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 15
        configuration.urlCache = nil
        transport = Transport(session: URLSession(configuration: configuration))
    }

    /// The outcome of a call: the decoded answer, or the status and body of any other one.
    enum Outcome<Value> {
        case success(Value)
        case failure(HTTPAnswer)
    }

    /// `GET /api/feed`.
    func feed() throws(TransportError) -> Outcome<[Post]> {
        struct Feed: Decodable { let posts: [Post] }
        let answer = try send("GET", "/api/feed")
        guard answer.status == 200, let feed = try? JSONDecoder().decode(Feed.self, from: answer.body) else {
            return .failure(answer)
        }
        return .success(feed.posts)
    }

    /// `POST /api/createPost` with `{"text": text}`; success is a 2xx answer.
    func createPost(text: String) throws(TransportError) -> Outcome<Void> {
        let answer = try send("POST", "/api/createPost", json: ["text": text])
        return (200..<300).contains(answer.status) ? .success(()) : .failure(answer)
    }

    /// `POST /login` with `{"login": email, "password": password}`; success is a 200 with
    /// `{"data": {"access_token": …}}`.
    func login(email: String, password: String) throws(TransportError) -> Outcome<String> {
        struct Session: Decodable {
            struct Tokens: Decodable { let access_token: String }
            let data: Tokens
        }
        let answer = try send("POST", "/login", json: ["login": email, "password": password])
        guard answer.status == 200, let session = try? JSONDecoder().decode(Session.self, from: answer.body) else {
            return .failure(answer)
        }
        return .success(session.data.access_token)
    }

    // MARK: - Requests

    private func send(_ method: String, _ path: String, json: [String: String]? = nil) throws(TransportError) -> HTTPAnswer {
        var request = URLRequest(url: Self.productionBaseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            request.httpBody = try? encoder.encode(json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let catbird {
            request = catbird.redirect(request)  // to Catbird, with X-Catbird-Parallel-Id
        }
        return try transport.send(request)
    }
}

/// The backend's error answer: `{"error": {"message": …, "code": …}}`.
enum LoginError {
    /// The message of an error answer's body, or nil when the body is not one.
    static func message(in body: Data) -> String? {
        struct Answer: Decodable {
            struct Details: Decodable { let message: String }
            let error: Details
        }
        return (try? JSONDecoder().decode(Answer.self, from: body))?.error.message
    }
}
