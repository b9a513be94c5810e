import CatbirdDomain
import CatbirdMatching
import CatbirdSupport
import CatbirdWire

/// The warning on the 201 of a mock added behind a catch-all of its tenant (tester finding
/// try10a F13): an earlier mock of the same method without header or body patterns, whose url
/// pattern every request-target matches (``CatbirdMatching/RequestPattern/isCatchAll``), and
/// without a `limit`, answers every request the new mock could match, since the first mock in
/// list order wins (Catbird 0.11's order, docs/matching.md#match-order). Kept, as 0.11 keeps
/// it (the catch-all may be removed later), but said, as for ``NeverMatchingMock``.
enum CatchAllWarning {
    /// The sentence naming `catchAll`, the earlier mock.
    static func warning(shadowedBy catchAll: Mock) -> String {
        "mock \(catchAll.id) (\(catchAll.pattern.source.summary)), added before this one, matches every "
            + "\(catchAll.patternMethod) request of this tenant and has no limit, so it answers every request this mock "
            + "could match: this mock is never served while it is there (the first mock added wins, Catbird 0.11's order; "
            + "docs/matching.md#match-order); add the catch-all after the specific mocks (remove it and add it again), "
            + "or give it a limit"
    }
}
