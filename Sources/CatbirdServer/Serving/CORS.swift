import CatbirdHTTP

/// `--cors`: lets a web app under test, served from another origin, call the server: its
/// mocks, files and upstream, and the control routes under `/catbird` (a browser test suite on
/// another origin sets its mocks) (`docs/files.md#cors`; the Fetch standard's CORS protocol).
///
/// - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered at once,
///   before any mock: `204` allowing the origin, the requested method and headers, credentials,
///   cached for 10 minutes.
/// - Every other answer to a request with an `Origin` gets `Access-Control-Allow-Origin` (that
///   origin), `Access-Control-Allow-Credentials: true`, `Access-Control-Expose-Headers` (the
///   answer's own field names) and `Vary: Origin`, unless it already has its own
///   `Access-Control-Allow-Origin` (a mock's or the upstream's is kept as it is).
enum CORS {
    /// The preflight answer, or nil when `request` is not a preflight.
    static func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", let origin = request.headers.first("Origin"),
              let method = request.headers.first("Access-Control-Request-Method") else { return nil }
        var headers: HTTPHeaders = [
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": method,
            "Access-Control-Allow-Credentials": "true",
            "Access-Control-Max-Age": "600",
            "Vary": "Origin",
        ]
        if let requested = request.headers.first("Access-Control-Request-Headers") {
            headers.add(name: "Access-Control-Allow-Headers", value: requested)
        }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// `answer`'s response, whenever it is sent, with the CORS fields for `request`'s origin
    /// added: the control routes' answers, some of which come later (a long poll, a query run
    /// on a control pool).
    static func decorate(_ answer: HTTPAnswer, for request: HTTPRequest) -> HTTPAnswer {
        guard request.headers.first("Origin") != nil else { return answer }
        return answer.map { decorate($0, for: request) }
    }

    /// `response` with the CORS fields for `request`'s origin added (see the type's comment).
    static func decorate(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard let origin = request.headers.first("Origin"), response.headers.first("Access-Control-Allow-Origin") == nil else {
            return response
        }
        var decorated = response
        let exposed = response.headers.fields.map(\.name)
        decorated.headers.add(name: "Access-Control-Allow-Origin", value: origin)
        decorated.headers.add(name: "Access-Control-Allow-Credentials", value: "true")
        if !exposed.isEmpty { decorated.headers.add(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", ")) }
        decorated.headers.add(name: "Vary", value: "Origin")
        return decorated
    }
}
