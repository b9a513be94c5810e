import CatbirdWebPage

extension RouteTable {
    /// The control route a request that no route serves was probably meant for, as `METHOD
    /// path` (`POST /catbird/api/mocks` for `POST /catbird/api/mock`, `GET /catbird/api/requests`
    /// for `GET /catbird/api/request`): the nearest of the exact routes by
    /// ``NearestName/nearest(to:among:)`` (equal but for case, or 1 or 2 edits away), over
    /// `METHOD path` with the path's `api/` after `/catbird/` left out on both sides, so that
    /// `/catbird/mocks` (the `api/` forgotten) is `/catbird/api/mocks` and `/catbird/api/version`
    /// is `/catbird/version`. nil when none is that close. The web page and its assets are not
    /// offered (a browser's, not a script's), nor the routes with a parameter
    /// (`DELETE /catbird/api/mocks/{id}`). For the 404 of an unknown control route
    /// (``APIError/noControlRoute(_:_:meant:)``; tester finding T19B-F19).
    func suggestion(method: String, path: Substring) -> String? {
        let offered = routes.filter { !$0.hasParameter && !Self.isWebPage($0.path) }
        let compared = offered.map { Self.compared($0.method, $0.path[...]) }
        guard let meant = NearestName.nearest(to: Self.compared(method, path), among: compared),
              let index = compared.firstIndex(of: meant) else { return nil }
        return "\(offered[index].method) \(offered[index].path)"
    }

    /// `METHOD path` with `/catbird/api/` read as `/catbird/`.
    private static func compared(_ method: String, _ path: Substring) -> String {
        let api = "/catbird/api/"
        return method + " " + (path.hasPrefix(api) ? "/catbird/" + path.dropFirst(api.count) : String(path))
    }

    /// Whether `path` is the web page's or one of its assets' (``WebPageRoutes``).
    private static func isWebPage(_ path: String) -> Bool {
        path == WebAsset.page.path || path == WebAsset.page.path + "/" || WebAsset.assets.contains { $0.path == path }
    }
}
