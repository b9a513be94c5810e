/// One file of the web log page, compiled into the binary (SwiftPM `embedInCode`, from
/// `Sources/CatbirdWebPage/Assets/`), so the page needs no files at run time and no network.
public struct WebAsset: Sendable {
    /// The path the server answers it at, under `/catbird`.
    public let path: String
    /// Its `Content-Type` header value.
    public let contentType: String
    /// Its bytes.
    public let bytes: [UInt8]

    /// The page itself, `GET /catbird` (query `tenant=<id>` is read by the script).
    public static let page = WebAsset(path: "/catbird", contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html)

    /// Everything the page loads, each under `/catbird/assets/`. The icon is declared by the
    /// page's `<link rel="icon">`, so browsers do not ask for `/favicon.ico` (which would be
    /// journaled as an unmatched request).
    public static let assets: [WebAsset] = [
        WebAsset(path: "/catbird/assets/page.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.page_js),
        WebAsset(path: "/catbird/assets/page.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.page_css),
        WebAsset(path: "/catbird/assets/icon.svg", contentType: "image/svg+xml", bytes: PackageResources.icon_svg),
    ]

    /// The page's Content-Security-Policy: scripts, styles, fetches and images from the server's
    /// own origin only (images also from `blob:` URLs the script makes of journaled image
    /// bodies); no inline script or style, no plugins, no framing, no form posts.
    public static let contentSecurityPolicy = """
        default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; \
        base-uri 'none'; form-action 'none'; frame-ancestors 'none'
        """
}
