import CatbirdDomain
import CatbirdSupport

/// Two more of the 404 reason's hints (``NearMissHints``), for habits brought from WireMock and
/// MockServer (tester finding try9a F6, F2; docs/matching.md#near-misses).
extension NearMissHints {
    /// The url hint when `mock`'s `equal` url is the target without its query (`/api/feed` for
    /// `/api/feed?page=1&size=20`: WireMock's `urlPath` ignores the query, `equal` does not), or
    /// the target but for a trailing `/` of its path (the query, if any, the same).
    static func urlSlip(_ mock: Mock, target: String) -> String? {
        let url = mock.pattern.source.url
        guard url.kind == .equal, url.value != target else { return nil }
        let (targetPath, targetQuery) = split(target)
        let (urlPath, urlQuery) = split(url.value)
        if urlQuery == nil, let targetQuery, urlPath == targetPath {
            // A wildcard of the path, `?` escaped, when the path has no other wildcard character.
            let wildcard = urlPath.contains(where: { "*?[{\\".contains($0) })
                ? "" : ", or the wildcard \(JSONText.shortString(urlPath + "\\?*"))"
            return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) is the request's path without its query "
                + "\(JSONText.shortString("?" + targetQuery)): equal compares the whole request-target, query included; write the "
                + "query in the mock, \(JSONText.shortString(target))\(wildcard)"
        }
        guard urlQuery == targetQuery, urlPath + "/" == targetPath || targetPath + "/" == urlPath else { return nil }
        return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) differs from the request-target only in a trailing '/': "
            + "equal compares the request-target as sent, so write \(JSONText.shortString(target))"
    }

    /// A target split at its first `?`: the path, and the query without the `?` (nil: none).
    private static func split(_ target: String) -> (path: Substring, query: Substring?) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// The method hint when `closest` has the method `ANY` or `*` (in any case) and matches in
    /// everything else (distance 1): methods are compared exactly, as in Catbird 0.11.
    static func anyMethod(_ closest: NearMissReport.Closest) -> String? {
        let method = closest.mock.pattern.source.method.rawValue
        guard closest.distance == 1, NeverMatchingMock.anyMethodSpellings.contains(method.uppercased()) else { return nil }
        return "mock \(closest.mock.id)'s method \(JSONText.shortString(method)) \(NeverMatchingMock.anyMethodMeaning)"
    }
}
