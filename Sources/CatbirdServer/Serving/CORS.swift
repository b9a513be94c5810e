import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// `--cors` and `--cors-origin`: which browser origins may call the server, and the fields that
/// tell the browser so (`docs/files.md#cors`; the Fetch standard's CORS protocol).
///
/// Which origins are allowed (``allowedOrigin(of:control:)``):
/// - `--cors-origin` listing origins: those only, on every route, the control routes under
///   `/catbird` included (a browser test suite on a listed origin sets its mocks);
/// - `--cors` alone: any origin on the mocks, files and upstream (reflected), but on the control
///   routes only the server's own: a page of any site a developer opens must not read the
///   journals or drop the tenants of a Catbird it can reach (tester finding try6a F6);
/// - `--cors-origin '*'`: any origin on every route, with a warning at start-up.
///
/// For an allowed origin:
/// - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered at
///   once, before any mock: `204` allowing the origin, the requested method and headers,
///   credentials, cached for 10 minutes;
/// - every other answer to it gets `Access-Control-Allow-Origin` (that origin),
///   `Access-Control-Allow-Credentials: true`, `Access-Control-Expose-Headers` (the answer's own
///   field names) and `Vary: Origin`, unless it already has its own
///   `Access-Control-Allow-Origin` (a mock's or the upstream's is kept as it is).
///
/// A control request (preflight or not) from another origin that is not allowed is refused
/// with 403 before its route runs (``controlRefusal(_:allowedOrigin:)``): a cross-site form `POST` needs no
/// preflight and would otherwise still act. Outside the control routes such a request is served
/// as without `--cors` (no CORS fields, a preflight is an ordinary request).
struct CORS: Sendable {
    /// The origins of `--cors-origin`, lowercased, without a default port
    /// (``CatbirdServer/Settings/normalizedOrigin(_:)``); empty when none is listed.
    let listed: Set<String>
    /// Any origin on every route (`--cors-origin '*'`).
    let anyOrigin: Bool

    /// The policy of `--cors` (`enabled`) and `--cors-origin` (`origins`: `scheme://host[:port]`
    /// or `*`); nil when both are off.
    init?(enabled: Bool, origins: [String]) {
        guard enabled || !origins.isEmpty else { return nil }
        anyOrigin = origins.contains("*")
        listed = Set(origins.filter { $0 != "*" }.map(CatbirdServer.Settings.normalizedOrigin))
    }

    /// The start-up warnings of this policy: any origin on the control routes, or listed
    /// origins acting as the admin when no `--admin-token` is set.
    func warnings(adminToken: String?) -> [String] {
        if anyOrigin {
            return ["--cors-origin '*': a page of any site a browser here opens can call the control routes (read every journal, change mocks"
                + (adminToken == nil ? ", drop every tenant: no --admin-token is set" : "") + "); list the test suite's origins instead (docs/files.md#cors)"]
        }
        guard !listed.isEmpty, adminToken == nil else { return [] }
        return ["--cors-origin without --admin-token: pages of \(listed.sorted().joined(separator: ", ")) can use the cross-tenant routes (list and drop every tenant); set --admin-token (docs/operations.md#admin-token)"]
    }

    /// `request`'s `Origin` when it is allowed on this kind of route (`control`: under
    /// `/catbird`), else nil (no `Origin`, or one this policy does not allow). A control request
    /// works it out once and passes it to ``controlRefusal(_:allowedOrigin:)``,
    /// ``preflight(_:origin:)`` and ``decorate(_:origin:)-(HTTPAnswer,_)``.
    func allowedOrigin(of request: HTTPRequest, control: Bool) -> String? {
        guard let origin = request.headers.first("Origin") else { return nil }
        if anyOrigin { return origin }
        let lowered = origin.lowercased()
        if listed.contains(lowered) { return origin }
        if control { return Self.isOwn(lowered, of: request) ? origin : nil }
        return listed.isEmpty ? origin : nil
    }

    /// Whether `origin` (lowercased) is the server's own as `request` reached it: `http://` or
    /// `https://` followed by its `Host` field (a same-origin request of the web page).
    private static func isOwn(_ origin: String, of request: HTTPRequest) -> Bool {
        guard let host = request.headers.first("Host")?.lowercased() else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }

    /// The 403 for a control request from an origin that may not use the control routes; nil
    /// when it has no `Origin` or its origin is allowed.
    /// - Parameter allowedOrigin: ``allowedOrigin(of:control:)`` of `request` as a control request.
    func controlRefusal(_ request: HTTPRequest, allowedOrigin: String?) -> APIError? {
        guard allowedOrigin == nil, let origin = request.headers.first("Origin") else { return nil }
        let refused = "the origin \(origin) may not use the control routes"
        // The option is suggested only with a value it accepts (T11-F8).
        if CatbirdServer.Settings.isListableOrigin(origin) {
            return .forbidden("\(refused): give --cors-origin \(origin) to let a test suite there set mocks (docs/files.md#cors)")
        }
        if origin == "null" {
            return .forbidden(
                "\(refused): a page with no origin of its own (a sandboxed iframe, a file:// page) sends Origin: null, which "
                    + "--cors-origin cannot list; only --cors-origin '*' lets such a page set mocks (docs/files.md#cors)")
        }
        return .forbidden("\(refused): it is not an origin --cors-origin can list (scheme, host, optional port: docs/files.md#cors)")
    }

    /// The preflight answer, or nil when `request` is not a preflight from an allowed origin.
    /// - Parameter origin: ``allowedOrigin(of:control:)`` of `request`, asked only for an
    ///   `OPTIONS` request with `Access-Control-Request-Method`.
    func preflight(_ request: HTTPRequest, origin allowedOrigin: @autoclosure () -> String?) -> HTTPResponse? {
        guard request.method == "OPTIONS", let method = request.headers.first("Access-Control-Request-Method"),
              let origin = allowedOrigin() else { return nil }
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

    /// Whether preflight `request` asks to send `X-Catbird-Parallel-Id` (its
    /// `Access-Control-Request-Headers` list names it, in any case): the request it stands for
    /// is a shard's, whose tenant the preflight does not tell (a browser sends the field's name
    /// only; tester finding tester66b-F2).
    static func asksForParallelId(_ request: HTTPRequest) -> Bool {
        request.headers.values("Access-Control-Request-Headers").contains { value in
            HTTPFieldList.members(value).contains { String($0).equalsIgnoringASCIICase(TenantID.headerName) }
        }
    }

    /// `answer`'s response, whenever it is sent, with the CORS fields for `origin` added: the
    /// control routes' answers, some of which come later (a long poll, a query run on a
    /// control pool).
    /// - Parameter origin: ``allowedOrigin(of:control:)`` of the request; nil: `answer` as it is.
    func decorate(_ answer: HTTPAnswer, origin: String?) -> HTTPAnswer {
        guard let origin else { return answer }
        return answer.map { decorate($0, origin: origin) }
    }

    /// `response` with the CORS fields for `request`'s origin added when it is allowed (see the
    /// type's comment); `control`: an answer of a route under `/catbird`.
    func decorate(_ response: HTTPResponse, for request: HTTPRequest, control: Bool = false) -> HTTPResponse {
        guard let origin = allowedOrigin(of: request, control: control) else { return response }
        return decorate(response, origin: origin)
    }

    /// `response` with the CORS fields for the allowed `origin` added, unless it has its own
    /// `Access-Control-Allow-Origin`.
    func decorate(_ response: HTTPResponse, origin: String) -> HTTPResponse {
        guard response.headers.first("Access-Control-Allow-Origin") == nil else { return response }
        var decorated = response
        let exposed = response.headers.fields.map(\.name)
        decorated.headers.add(name: "Access-Control-Allow-Origin", value: origin)
        decorated.headers.add(name: "Access-Control-Allow-Credentials", value: "true")
        if !exposed.isEmpty { decorated.headers.add(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", ")) }
        decorated.headers.add(name: "Vary", value: "Origin")
        return decorated
    }
}

extension CatbirdServer.Settings {
    /// The CORS policy of ``cors`` and ``corsOrigins``; nil when both are off.
    var corsPolicy: CORS? { CORS(enabled: cors, origins: corsOrigins) }

    /// What start-up warns of these CORS settings (``CORS/warnings(adminToken:)``): any origin
    /// allowed on the control routes, or listed origins without ``adminToken``; empty otherwise.
    public var corsWarnings: [String] { corsPolicy?.warnings(adminToken: adminToken) ?? [] }
}
