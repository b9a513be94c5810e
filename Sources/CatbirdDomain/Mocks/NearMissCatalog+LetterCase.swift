import CatbirdSupport

/// The letter-case slips of a 404 (docs/matching.md#near-misses): `equal`-url mocks whose url
/// differs from the request-target only in ASCII letter case, found by lookup, not by ranking
/// (tester finding tester45a-F11: a mock `/API/USERS/ME` for a request `/api/users/me` was not
/// named behind three closer mocks `/api/users/me1`…). A mock whose url has no capital is
/// found by the equal-URL index under the lowered target (``NearMissSlips/urls(of:)``); one
/// whose url has a capital, here.
extension NearMissCatalog {
    /// The `equal`-url mocks of `mocks` whose url has an ASCII capital, by their url with ASCII
    /// capitals lowered (indexes in `mocks`, in order).
    static func equalURLsByLowercase(_ mocks: [Mock]) -> [String: [Int]] {
        var byLowercase: [String: [Int]] = [:]
        for (index, mock) in mocks.enumerated() {
            let url = mock.patternURL
            guard url.kind == .equal, url.value.utf8.contains(where: { ASCIICase.lower($0) != $0 }) else { continue }
            byLowercase[url.value.asciiLowercased(), default: []].append(index)
        }
        return byLowercase
    }

    /// Indexes of the `equal`-url mocks with an ASCII capital whose url is `target` but for
    /// ASCII letter case (not `target` itself), in order.
    func mixedCaseSlips(of target: String) -> [Int] {
        guard !mixedCaseEqualURLs.isEmpty, let found = mixedCaseEqualURLs[target.asciiLowercased()] else { return [] }
        return found.filter { mocks[$0].patternURL.value != target }
    }
}
