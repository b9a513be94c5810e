import CatbirdSupport

/// The 404 reason's hint for a request no mock matched whose path is another mock server's
/// control API: WireMock's `/__admin/…` (its stub mappings at `/__admin/mappings`, its request
/// journal at `/__admin/requests`) or MockServer's `/mockserver/…` (`PUT /mockserver/expectation`).
/// A harness moved over from either sends its stubs there first; here such a path is app traffic
/// like any other (a mock may answer it), so only its 404 points to Catbird's control API
/// (tester finding tester25b-F3: a stub posted to `/__admin/mappings` got the plain 404).
enum ForeignAdminHint {
    /// `/__admin/mappings is WireMock's admin API, which Catbird does not serve: add mocks with
    /// POST /catbird/api/mocks (a WireMock stub posted there is answered with its Catbird action),
    /// read what the app sent with GET /catbird/api/requests, count and find it …/count, …/find,
    /// its near misses …/unmatched (README "Coming from WireMock or MockServer")` (tester finding
    /// tester52b-F2: a verification moved from `/__admin/requests/count` was pointed to the listing only),
    /// or the same for MockServer; nil for any other path. Compared on the path of `target`
    /// (origin form, its query left out), case-sensitively as both servers route.
    static func hint(target: String) -> String? {
        // Most 404s stop here, before the path is cut from the target.
        guard target.hasPrefix("/__admin") || target.hasPrefix("/mockserver") else { return nil }
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        let server: String
        if path == "/__admin" || path.hasPrefix("/__admin/") {
            server = "WireMock's admin API"
        } else if path == "/mockserver" || path.hasPrefix("/mockserver/") {
            server = "MockServer's control API"
        } else {
            return nil
        }
        return "\(JSONText.shortString(path)) is \(server), which Catbird does not serve: add mocks with POST /catbird/api/mocks "
            + "(a WireMock stub mapping or a MockServer expectation posted there is answered with the Catbird action for it), "
            + "read what the app sent with GET /catbird/api/requests, count and find it by request pattern with POST "
            + "/catbird/api/requests/count and /find, its near misses with GET /catbird/api/requests/unmatched (README \"Coming "
            + "from WireMock or MockServer\")"
    }
}
