import Foundation

/// The answer of `POST /catbird/api/requests/count` (docs/protocol.md#count):
/// `{"count": n}`, and, when some journaled requests match all but the body pattern and the
/// journal kept only part of their request body (`--journal-body-limit`), that part not deciding
/// the body pattern (a `contains` not found there; any other kind), how many (`cutBodyMatches`)
/// and a sentence naming the first (`warnings`): those are not counted, and the answer says so
/// rather than a silent 0 or a count of a body that may not match.
@_spi(Server) public struct CatbirdCountAnswer: Codable, Sendable, Equatable {
    /// How many journaled requests match the pattern.
    public var count: Int
    /// How many more match all but the body pattern, whose body the journal kept cut short and
    /// undecided by the body pattern (only a `contains` found in the kept part decides); nil when
    /// none (and from servers that predate it).
    public var cutBodyMatches: Int?
    /// Sentences about the count (the cut bodies); nil when there is nothing to say.
    public var warnings: [String]?
    /// Set when the server's retention deleted some of the tenant's entries: the highest id
    /// deleted (the count misses any of them that matched); nil when none were.
    public var prunedThrough: Int64?

    /// An answer.
    public init(count: Int, cutBodyMatches: Int? = nil, warnings: [String]? = nil, prunedThrough: Int64? = nil) {
        self.count = count
        self.cutBodyMatches = cutBodyMatches
        self.warnings = warnings
        self.prunedThrough = prunedThrough
    }
}
