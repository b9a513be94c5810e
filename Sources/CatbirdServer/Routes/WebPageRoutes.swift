import CatbirdHTTP
import CatbirdWebPage

/// The web log page: `GET /catbird` (and `GET /catbird/`, the same page: a typed or linked
/// trailing slash; its assets are linked by absolute paths, so they load from either address)
/// and its assets under `/catbird/assets/` (see ``WebAsset``). All of it lies under `/catbird`,
/// so nothing the page loads is journaled.
/// Every answer carries the page's Content-Security-Policy and `X-Content-Type-Options: nosniff`;
/// `Cache-Control: no-cache` makes a browser revalidate, so an upgraded server's page is seen
/// at once.
enum WebPageRoutes {
    static func routes() -> [Route] {
        let served = [(WebAsset.page.path, WebAsset.page), (WebAsset.page.path + "/", WebAsset.page)]
            + WebAsset.assets.map { ($0.path, $0) }
        return served.map { path, asset in
            let response = HTTPResponse(
                status: 200,
                headers: [
                    "Content-Type": asset.contentType,
                    "Content-Security-Policy": WebAsset.contentSecurityPolicy,
                    "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "no-referrer",
                    "Cache-Control": "no-cache",
                ],
                body: asset.bytes)
            // The page reads its own query (a tenant to show) in the browser.
            return Route("GET", path, query: nil) { _ in response }
        }
    }
}
