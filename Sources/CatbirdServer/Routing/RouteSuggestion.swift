import CatbirdWebPage

extension RouteTable {
    /// The control route a request that no route serves was probably meant for, as `METHOD
    /// path` (`POST /catbird/api/mocks` for `POST /catbird/api/mock`, `GET /catbird/api/requests`
    /// for `GET /catbird/api/request`, `DELETE /catbird/api/mocks/5` for `DELETE
    /// /catbird/api/mock/5`): the nearest by ``NearestName/nearest(to:among:)`` (equal but for
    /// case, or 1 or 2 edits away) of the exact routes and of the parameter routes' paths
    /// filled from the request's own segments (``Route/filledTemplates(from:)``), over `METHOD
    /// path` with the path's `api/` after `/catbird/` left out on both sides, so that
    /// `/catbird/mocks` (the `api/` forgotten) is `/catbird/api/mocks` and `/catbird/api/version`
    /// is `/catbird/version`. nil when none is that close. The web page and its assets are not
    /// offered (a browser's, not a script's). For the 404 of an unknown control route
    /// (``APIError/noControlRoute(_:_:meant:)``; tester findings T19B-F19, tester30a-F7).
    func suggestion(method: String, path: Substring) -> String? {
        var offered: [(compared: String, shown: String)] = []
        for route in routes where !Self.isWebPage(route.path) {
            if route.hasParameter {
                for filled in route.filledTemplates(from: path) {
                    offered.append((Self.compared(route.method, filled.compared[...]), "\(route.method) \(filled.shown)"))
                }
            } else {
                offered.append((Self.compared(route.method, route.path[...]), "\(route.method) \(route.path)"))
            }
        }
        let compared = offered.map(\.compared)
        guard let meant = NearestName.nearest(to: Self.compared(method, path), among: compared),
              let index = compared.firstIndex(of: meant) else { return enclosingRoute(method: method, path: path) }
        return offered[index].shown
    }

    /// The longest exact route whose path is a whole-segment prefix of `path`, of `method` when
    /// one is, else of any method (`GET /catbird/api/requests/unmatched` for WireMock's
    /// `…/requests/unmatched/near-misses`, `POST /catbird/api/requests/find` for
    /// `GET …/requests/find/1`: tester finding tester48b-F5, told "not a journal id"); never
    /// the parent of a parameter route (`/catbird/api/tenants` for `…/tenants/a/b`, whose
    /// handler explains the `/` in an id; `/catbird/api/requests` for `…/requests/x/y`) nor a
    /// `DELETE`; nil when none is.
    private func enclosingRoute(method: String, path: Substring) -> String? {
        let parents = Set(routes.filter(\.hasParameter).map(\.path))
        let enclosing = routes.filter {
            !$0.hasParameter && !Self.isWebPage($0.path) && $0.method != "DELETE" && path.hasPrefix($0.path + "/")
                && !parents.contains($0.path + "/")
        }
            .sorted { ($0.path.count, $0.method == method ? 1 : 0) > ($1.path.count, $1.method == method ? 1 : 0) }
        return enclosing.first.map { "\($0.method) \($0.path)" }
    }

    /// `METHOD path` with `/catbird/api/` read as `/catbird/`, the `api` in any case (tester
    /// finding tester68a-F4: `/catbird/API/health`, equal to a route but for case, was offered
    /// nothing, its `API/` counted as edits).
    private static func compared(_ method: String, _ path: Substring) -> String {
        let catbird = "/catbird/"
        guard path.hasPrefix(catbird) else { return method + " " + path }
        let rest = path.dropFirst(catbird.count)
        guard String(rest.prefix(4)).equalsIgnoringASCIICase("api/") else { return method + " " + path }
        return method + " " + catbird + rest.dropFirst(4)
    }

    /// Whether `path` is the web page's or one of its assets' (``WebPageRoutes``).
    private static func isWebPage(_ path: String) -> Bool {
        path == WebAsset.page.path || path == WebAsset.page.path + "/" || WebAsset.assets.contains { $0.path == path }
    }
}
