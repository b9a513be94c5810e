// Another module the test target imports, which also exports the name `HTTPMethod` (networking
// libraries do). Compiled as the module `OtherHTTP`.
public enum HTTPMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
}

public struct Endpoint: Sendable {
    public let method: HTTPMethod
    public let path: String

    public init(method: HTTPMethod, path: String) {
        self.method = method
        self.path = path
    }
}
