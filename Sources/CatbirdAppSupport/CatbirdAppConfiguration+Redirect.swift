import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CatbirdAppConfiguration {
    /// `url` aimed at the Catbird server: scheme, host and port (and any user or password)
    /// become the server's, the path (after the server URL's own path, if it has one), query
    /// and fragment stay. `https://api.example.com/v1/feed?page=2` becomes
    /// `http://127.0.0.1:8080/v1/feed?page=2`.
    ///
    /// A URL that already points at the server (same scheme, host and port), or whose scheme is
    /// neither `http` nor `https` (`file:`, `data:`, …), is returned unchanged, so redirecting
    /// twice is harmless. A relative URL (no host) is resolved against its base first; one
    /// without a base is taken as a path on the server.
    public func url(for url: URL) -> URL {
        guard let original = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let server = URLComponents(url: serverURL, resolvingAgainstBaseURL: false)
        else { return url }
        if let scheme = original.scheme?.lowercased() {
            guard scheme == "http" || scheme == "https" else { return url }
            if scheme == server.scheme, original.host?.lowercased() == server.host?.lowercased(),
               Self.effectivePort(original) == Self.effectivePort(server) {
                return url
            }
        }
        var rewritten = original
        rewritten.scheme = server.scheme
        rewritten.percentEncodedUser = server.percentEncodedUser
        rewritten.percentEncodedPassword = server.percentEncodedPassword
        rewritten.percentEncodedHost = server.percentEncodedHost
        rewritten.port = server.port
        var path = original.percentEncodedPath
        if !path.hasPrefix("/") { path = "/" + path }
        rewritten.percentEncodedPath = server.percentEncodedPath + path
        return rewritten.url ?? url
    }

    /// `request` sent to the Catbird server instead: its URL rewritten by ``url(for:)`` and,
    /// when there is a parallel id, its `X-Catbird-Parallel-Id` header set. Method, other
    /// headers, body, timeout and cache policy stay as they were.
    public func redirect(_ request: URLRequest) -> URLRequest {
        var redirected = request
        if let original = request.url {
            redirected.url = url(for: original)
        }
        for (name, value) in headers {
            redirected.setValue(value, forHTTPHeaderField: name)
        }
        return redirected
    }

    /// The port `components` connect to: the explicit one, else the scheme's default.
    private static func effectivePort(_ components: URLComponents) -> Int? {
        if let port = components.port { return port }
        switch components.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
