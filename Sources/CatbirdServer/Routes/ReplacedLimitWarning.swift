import CatbirdDomain
import CatbirdWire

/// An `update` that replaces a mock with a `limit` still unspent, or gives a mock a `limit` in
/// place of one without: WireMock's scenarios and `times` are several stubs for one request,
/// answered in turn, but two mocks of one pattern are one mock here (an `update` replaces the
/// mock of its pattern, as in Catbird 0.11, docs/matching.md#update-replaces-in-place), so the
/// first answer of a sequence written that way is gone (tester finding tester54a-F5: "first
/// 503, then 200" answered 200 twice, with a bare 201). The mock is replaced as asked; the 201
/// says how a sequence is written here: with a header pattern every request matches (`Host`),
/// which works for any url and url kind (tester finding tester55b-F3, F4: "the wildcard of the
/// same url" was no other pattern for a wildcard url, and no match for a url holding `[` or `{`).
enum ReplacedLimitWarning {
    /// The warning for replacing `replaced` (its current hits and limit) with a mock answering
    /// `response`, or nil: only when `replaced` had a limit with uses left, or `response` adds a
    /// limit to a mock that had none, and `response` is not the one `replaced` was added with
    /// (a suite that re-adds the same mock in each test's set-up is told nothing: tester finding
    /// tester55b-F5).
    static func warning(replacing replaced: Mock?, with response: ResponseMock) -> String? {
        guard let replaced, replaced.response != response else { return nil }
        let what: String
        if let left = replaced.remainingLimit, left > 0 {
            what = "replaced mock \(replaced.id), which had \(left) of its limit left"
        } else if replaced.remainingLimit == nil, response.limit != nil {
            what = "replaced mock \(replaced.id), which had no limit, with one"
        } else {
            return nil
        }
        return "this update \(what): mocks of the same pattern are one mock, so an update replaces it "
            + "(docs/matching.md#update-replaces-in-place); for a sequence of answers to one request (WireMock's scenarios "
            + "or times), add the first with its limit, then the next with the same pattern and a header pattern every "
            + "request carries, such as {\"Host\": {\"kind\": \"wildcard\", \"value\": \"*\"}}, which answers once the first "
            + "is used up (docs/matching.md#sequences)"
    }
}
