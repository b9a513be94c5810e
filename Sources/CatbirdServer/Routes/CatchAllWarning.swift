import CatbirdDomain
import CatbirdMatching
import CatbirdSupport
import CatbirdWire

/// The warning on the 201 of a mock added behind an earlier, broader mock of its tenant without
/// a `limit`, which answers every request the new mock could match, since the first mock in
/// list order wins (Catbird 0.11's order, docs/matching.md#match-order). Kept, as 0.11 keeps it
/// (the broader mock may be removed later), but said, as for ``NeverMatchingMock``. Three kinds of
/// broader mock are recognised (docs/protocol.md#mocks-that-can-never-match); neither has
/// header or body patterns, and whether one regular expression includes another is not decided:
/// - a catch-all (tester finding try10a F13): of the same method, its url pattern one every
///   request-target matches (``CatbirdMatching/RequestPattern/isCatchAll``);
/// - one with the same method and url pattern (kind and value) as a new mock that has header or
///   body patterns (tester finding T18A-F9: WireMock users add the generic stub first, then the
///   specific one);
/// - one of the same method whose `wildcard` or `regexp` url matches the new mock's `equal` url
///   (tester finding tester50b-F5: `/api/*` before `/api/users`).
enum CatchAllWarning {
    /// The sentence naming `catchAll`, the earlier mock.
    static func warning(shadowedBy catchAll: Mock) -> String {
        "mock \(catchAll.id) (\(catchAll.pattern.source.shownInNearMisses.summary)), added before this one, matches every "
            + "\(catchAll.patternMethod) request of this tenant and has no limit, so it answers every request this mock "
            + "could match: this mock is never served while it is there (the first mock added wins, Catbird 0.11's order; "
            + "docs/matching.md#match-order); add the catch-all after the specific mocks (remove it and add it again), "
            + "or give it a limit"
    }

    /// The sentence naming `covering`, the earlier `wildcard` or `regexp` mock of the same method
    /// whose url matches the new mock's `equal` url, without header or body patterns.
    static func warning(shadowedByCovering covering: Mock) -> String {
        "mock \(covering.id) (\(covering.pattern.source.shownInNearMisses.summary)), added before this one, matches this mock's "
            + "url and method, has no header or body pattern and no limit, so it answers every request this mock could match: "
            + "this mock is never served while it is there (the first mock added wins, Catbird 0.11's order, where WireMock's "
            + "latest stub wins; docs/matching.md#match-order); add the broader mock after the specific ones (remove it and "
            + "add it again), or give it a limit"
    }

    /// The sentence naming `anyHost`, the earlier mock of the same method and url pattern whose
    /// only header pattern matches every `Host` (a sequence's last step, docs/matching.md#sequences).
    static func warning(shadowedByAnyHost anyHost: Mock) -> String {
        "mock \(anyHost.id) (\(anyHost.pattern.source.shownInNearMisses.summary)), added before this one, has the same method and url "
            + "pattern, a Host pattern every request's Host matches, no body pattern and no limit, so it answers every request "
            + "this mock could match: this mock is never served while it is there (the first mock added wins, Catbird 0.11's "
            + "order); to run a sequence again, remove its steps (or removeAll) and add them again in order "
            + "(docs/matching.md#sequences)"
    }

    /// The sentence naming `broader`, the earlier mock of the same method and url pattern
    /// without header or body patterns.
    static func warning(shadowedByBroader broader: Mock) -> String {
        "mock \(broader.id) (\(broader.pattern.source.shownInNearMisses.summary)), added before this one, has the same method and url "
            + "pattern, no header or body pattern and no limit, so it answers every request this mock could match: this "
            + "mock is never served while it is there (the first mock added wins, Catbird 0.11's order; "
            + "docs/matching.md#match-order); add the broader mock after the specific ones (remove it and add it again), "
            + "or give it a limit"
    }
}
