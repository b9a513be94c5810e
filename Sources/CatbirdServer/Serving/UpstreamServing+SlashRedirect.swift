import CatbirdHTTP

/// A backend's redirect between the two spellings of a directory (`/api` → `301 Location:
/// /api/`, as nginx, Apache and Python's file server answer), which record mode would file
/// where the slashed form's recording is: `/api` names `api/index` once `api/` is a directory
/// (docs/files.md#request-to-file). Written there, the replay of `/api/` redirects to itself
/// for ever (tester finding tester44a-F2: curl gave up after 50 redirects).
extension UpstreamServing {
    /// Why the `response` to `request`, staged at `path`, is not recorded: a 3xx whose
    /// `Location` is the request's path with a `/` added (the same query), when `path` is a
    /// directory's `index`; nil otherwise. A `Location` with a scheme or host other than the
    /// request's is left alone: its replay sends the client elsewhere, not back here.
    static func slashRedirectProblem(_ request: HTTPRequest, _ response: HTTPResponse, path: String) -> String? {
        guard (300...399).contains(response.status), path.hasSuffix("/index"),
              let location = response.headers.first("Location") else { return nil }
        let target = request.target
        let (origin, originForm) = Self.split(target)
        let (path, query) = Self.pathAndQuery(originForm)
        let slashed = path + "/" + query
        guard location == slashed || location == origin + slashed, !path.hasSuffix("/") else { return nil }
        return "not recorded: a \(response.status) from \(target) to \(location), which names the same file as \(target) "
            + "(\(path) is a directory, so both are its index): replayed, \(location) would redirect to itself (docs/files.md#recording)"
    }

    /// `target` as its origin (`http://host:port`, empty for an origin-form target) and the rest.
    private static func split(_ target: String) -> (origin: String, rest: String) {
        guard !target.hasPrefix("/"), let scheme = target.range(of: "://") else { return ("", target) }
        let afterScheme = target[scheme.upperBound...]
        let slash = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        return (String(target[..<slash]), String(target[slash...]))
    }

    /// An origin-form target's path and its query with the `?` (empty when there is none).
    private static func pathAndQuery(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[mark...]))
    }
}
