import CatbirdDomain
import CatbirdHTTP
import Foundation

/// A backend's redirect between the two spellings of a directory (`/api` → `301 Location:
/// /api/`, as nginx, Apache and Python's file server answer; or `/api/` → `/api`, as frameworks
/// that strip a trailing slash answer), which record mode would file where the directory's
/// recording is, or will be: `/api` and `/api/` both name `api/index` once `api/` is a directory
/// (docs/files.md#request-to-file; a file `api` recorded first is moved there when something
/// under `api/` is recorded). Replayed, it redirects to itself for ever (tester findings
/// tester44a-F2: curl gave up after 50 redirects; tester45a-F4, F5, F8: the other order of
/// recording, an absolute or relative `Location`, the reverse redirect).
extension UpstreamServing {
    /// Why the `response` to `request` is not recorded (in ``skippedByRule(_:_:includesQuery:)``'s
    /// words): a 3xx whose `Location`, resolved against the request's URL (RFC 3986 section 5),
    /// has the request's path with a `/` added or taken away, and its query, or names the same
    /// file mock (``sameNameRedirect(_:_:to:resolved:includesQuery:)``); nil otherwise. The
    /// `Location`'s host is not compared: nginx writes its own address there
    /// (`absolute_redirect`), which a replay sends the app to instead.
    ///
    /// With a redirect URL that has a path (`basePath`, `/v1`), the request went to `/v1` + its
    /// target, and the `Location` is resolved against that: one under `/v1` names the client's
    /// target without it, one outside names no file of this directory (tester finding
    /// tester53a-F2: `302 Location: /v1/g1/flip` to `/g1/flip` replaced the good recording).
    static func slashRedirect(_ request: HTTPRequest, _ response: HTTPResponse, includesQuery: Bool, basePath: String = "") -> String? {
        guard (300...399).contains(response.status), let location = response.headers.first("Location") else { return nil }
        let target = request.target
        let upstreamPath = target.hasPrefix("/") ? basePath : ""
        let base = target.hasPrefix("/") ? URL(string: "http://catbird.invalid" + upstreamPath + target) : URL(string: target)
        guard let base, let resolved = URL(string: location, relativeTo: base)?.absoluteURL,
              var asked = URLComponents(url: base, resolvingAgainstBaseURL: false),
              var told = URLComponents(url: resolved, resolvingAgainstBaseURL: false) else { return nil }
        if !upstreamPath.isEmpty {
            let toldPath = told.percentEncodedPath
            guard toldPath == upstreamPath || toldPath.hasPrefix(upstreamPath + "/") else { return nil }
            told.percentEncodedPath = String(toldPath.dropFirst(upstreamPath.count))
            asked.percentEncodedPath = String(asked.percentEncodedPath.dropFirst(upstreamPath.count))
        }
        let (path, other) = (asked.percentEncodedPath, told.percentEncodedPath)
        if asked.percentEncodedQuery == told.percentEncodedQuery, path != other, path + "/" == other || other + "/" == path {
            return "a \(response.status) from \(target) to \(location) is a redirect to the other spelling of the same file mock "
                + "(once \(path.hasSuffix("/") ? other : path) is a directory, both name its index): replayed, it would redirect to itself"
        }
        return sameNameRedirect(request, response, to: told, resolved: resolved, includesQuery: includesQuery)
    }

    /// Why a 3xx from `request.target` to `told` (its `Location` resolved) is not recorded when
    /// both targets name one file mock under the directory's rules (``FileMockName``: empty
    /// segments dropped, the query left out without `--files-with-query`): `/api//users` →
    /// `/api/users`, `/products` → `/products?page=1` would be written over the file they point
    /// to, and replayed redirect to themselves (tester finding tester49a-F5: the 301 replaced
    /// the good `api/users` recording), and a redirect to the request's own target. Nil for a
    /// redirect to another file.
    private static func sameNameRedirect(
        _ request: HTTPRequest, _ response: HTTPResponse, to told: URLComponents, resolved: URL, includesQuery: Bool
    ) -> String? {
        let target = request.target
        let toldTarget = target.hasPrefix("/")
            ? told.percentEncodedPath + (told.percentEncodedQuery.map { "?" + $0 } ?? "") : resolved.absoluteString
        // The very same target too (tester finding tester52a-F4: `302 Location: /flip`, `./flip`,
        // `/flip#top` or the backend's own absolute URL replaced the good `flip` recording).
        // Or its directory's index, which both name once the name is a directory (tester finding
        // tester71b-F1: `/x` → `/x//`, `/x/index`, `/x%2F`, `/x/?`, and `/x?a=1` → `/x/` replaced
        // the good `x/index`, and replayed redirected to itself).
        guard let asked = FileMockName(target: target, includesQuery: includesQuery),
              let pointed = FileMockName(target: toldTarget, includesQuery: includesQuery)
        else { return nil }
        let name: String
        if asked.path == pointed.path {
            name = asked.path
        } else if let index = [asked.directoryIndex?.path, pointed.directoryIndex?.path].compactMap({ $0 }).first(where: {
            $0 == pointed.path || $0 == asked.path
        }) {
            name = "\(index), once \(index.dropLast("/index".count)) is a directory"
        } else {
            return nil
        }
        let location = response.headers.first("Location") ?? toldTarget
        return "a \(response.status) from \(target) to \(location) is a redirect to a target that names the same file mock "
            + "(\(name)\(includesQuery ? "" : ", its query left out without --files-with-query")): replayed, it would redirect to itself"
    }
}
