import CatbirdDomain
import CatbirdSupport

/// Two more of the 404 reason's hints (``NearMissHints``), for habits brought from WireMock and
/// MockServer (tester finding try9a F6, F2; docs/matching.md#near-misses).
extension NearMissHints {
    /// The url hint when `mock`'s `equal` url is the target without its query (`/api/feed` for
    /// `/api/feed?page=1&size=20`: WireMock's `urlPath` ignores the query, `equal` does not), or
    /// the target but for a trailing `/` of its path (the query, if any, the same).
    ///
    /// Every 404 with near misses asks it for each of them: the url is read in place
    /// (``Mock/patternURL``), and an ASCII url and target, which compare byte for byte, are
    /// first checked on their bytes (``mayBeURLSlip(_:target:)``), so that most misses never
    /// split them by `Character` (counted with callgrind: about 19,000 instructions of a
    /// one-mock tenant's miss, a pattern copy and two `Character` searches per near miss).
    static func urlSlip(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard url.kind == .equal, mayBeURLSlip(url.value, target: target) else { return nil }
        return urlSlip(mockID: mock.id, url: url.value, target: target)
    }

    /// ``urlSlip(_:target:)`` for an `equal` url `url` of mock `mockID`, checked as `String`s.
    static func urlSlip(mockID: Int64, url: String, target: String) -> String? {
        guard url != target else { return nil }
        let (targetPath, targetQuery) = split(target)
        let (urlPath, urlQuery) = split(url)
        if urlQuery == nil, let targetQuery, urlPath == targetPath {
            // A wildcard of the path, `?` escaped, when the path has no other wildcard character.
            let wildcard = urlPath.contains(where: { "*?[{\\".contains($0) })
                ? "" : ", or the wildcard \(JSONText.shortString(urlPath + "\\?*"))"
            return "mock \(mockID)'s url \(JSONText.shortString(url)) is the request's path without its query "
                + "\(JSONText.shortString("?" + targetQuery)): equal compares the whole request-target, query included; write the "
                + "query in the mock, \(JSONText.shortString(target))\(wildcard)"
        }
        guard urlQuery == targetQuery else { return nil }
        if targetPath.hasPrefix("/"), targetPath.contains("//"), NearMissSlips.collapsingSlashes(targetPath) == urlPath {
            // A base URL ending in '/' joined with a path starting with one (tester finding
            // tester50b-F6; the control path's own hint says the same, ControlPathSlipHint).
            return "mock \(mockID)'s url \(JSONText.shortString(url)) differs from the request-target only in a doubled '/': "
                + "equal compares the request-target as sent; check the app's base URL for a trailing '/'"
        }
        guard urlPath + "/" == targetPath || targetPath + "/" == urlPath else { return nil }
        return "mock \(mockID)'s url \(JSONText.shortString(url)) differs from the request-target only in a trailing '/': "
            + "equal compares the request-target as sent, so write \(JSONText.shortString(target))"
    }

    /// Whether ``urlSlip(_:target:)`` may give a hint for an `equal` `url` and `target`: false
    /// only when both are ASCII (each `Character` one byte, `==` byte equality) and their bytes
    /// show neither case: the url is the target's path before its first `?`, nor do their paths
    /// differ in a trailing `/` alone with the same query (or none). True for every other pair,
    /// which ``urlSlip(mockID:url:target:)`` then checks as `String`s.
    static func mayBeURLSlip(_ url: String, target: String) -> Bool {
        var url = url
        var target = target
        return url.withUTF8 { url in
            target.withUTF8 { target in
                guard isASCII(url), isASCII(target) else { return true }
                let urlMark = url.firstIndex(of: UInt8(ascii: "?"))
                let targetMark = target.firstIndex(of: UInt8(ascii: "?"))
                let urlPath = UnsafeBufferPointer(rebasing: url[..<(urlMark ?? url.count)])
                let targetPath = UnsafeBufferPointer(rebasing: target[..<(targetMark ?? target.count)])
                if urlMark == nil, targetMark != nil, urlPath.elementsEqual(targetPath) { return true }
                let sameQuery = switch (urlMark, targetMark) {
                case (nil, nil): true
                case let (u?, t?): url[u...].elementsEqual(target[t...])
                default: false
                }
                return sameQuery && (endsInSlash(of: targetPath, after: urlPath) || endsInSlash(of: urlPath, after: targetPath)
                    || isCollapsed(targetPath, into: urlPath))
            }
        }
    }

    /// Whether `path`, an origin-form path holding two `/` in a row, is `collapsed` once each run
    /// of `/` is one (``NearMissSlips/collapsingSlashes(_:)`` by bytes).
    private static func isCollapsed(_ path: UnsafeBufferPointer<UInt8>, into collapsed: UnsafeBufferPointer<UInt8>) -> Bool {
        guard path.first == UInt8(ascii: "/"), collapsed.count < path.count else { return false }
        var next = 0
        var doubled = false
        for index in path.indices {
            if index > 0, path[index] == UInt8(ascii: "/"), path[index - 1] == UInt8(ascii: "/") {
                doubled = true
                continue
            }
            guard next < collapsed.count, collapsed[next] == path[index] else { return false }
            next += 1
        }
        return doubled && next == collapsed.count
    }

    /// Whether `longer` is `shorter` followed by one `/`.
    private static func endsInSlash(of longer: UnsafeBufferPointer<UInt8>, after shorter: UnsafeBufferPointer<UInt8>) -> Bool {
        longer.count == shorter.count + 1 && longer.last == UInt8(ascii: "/") && longer.prefix(shorter.count).elementsEqual(shorter)
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains { $0 >= 0x80 }
    }

    /// A target split at its first `?`: the path, and the query without the `?` (nil: none).
    private static func split(_ target: String) -> (path: Substring, query: Substring?) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// The method hint when `mock` has the method `ANY` or `*` (in any case) and matches in
    /// everything else (`distance` 1): methods are compared exactly, as in Catbird 0.11. The
    /// distance first, then the method read in place (``Mock/patternMethod``).
    static func anyMethod(_ mock: Mock, distance: Double?) -> String? {
        guard distance == 1 else { return nil }
        let method = mock.patternMethod
        guard NeverMatchingMock.anyMethodSpellings.contains(method.uppercased()) else { return nil }
        return "mock \(mock.id)'s method \(JSONText.shortString(method)) \(NeverMatchingMock.anyMethodMeaning)"
    }
}
