@_spi(Server) import CatbirdWire
import Foundation

/// Reading `find(matching:)`'s or `unmatched()`'s pages when the caller gave no `limit`: pages
/// of ``pageSize`` from `since` on, joined into one page, until the last one or a bound
/// (``maximumEntries`` entries or ``maximumPages`` pages, at most 4 MiB of JSON each), so that
/// `find(matching: p).requests.count` counts every match, as the README promises (tester
/// finding tester22a-F19: it counted the first page only, 100 entries or fewer).
struct MatchPages {
    /// The largest page the server serves.
    static let pageSize = 1000

    /// The most entries one call gathers before it stops with `hasMore` true.
    static let maximumEntries = 10_000

    /// The most pages one call reads before it stops with `hasMore` true (pages of large
    /// bodies are cut at 4 MiB, so this bounds the answer's size to about 64 MiB).
    static let maximumPages = 16

    private let makeCall: @Sendable (_ since: Int64?, _ limit: Int) -> APICall<CatbirdRequestPage>
    private var since: Int64?
    private var pages = 0

    /// The pages read so far, joined: their entries in order, the last page's `hasMore`,
    /// `nextSince`, `nextBefore` and `sizeLimited`, the highest `prunedThrough`, the first
    /// page's `cutBodyMatches` and `warnings` (they describe the bounds, not the page).
    private(set) var joined: CatbirdRequestPage?

    init(since: Int64?, _ makeCall: @escaping @Sendable (_ since: Int64?, _ limit: Int) -> APICall<CatbirdRequestPage>) {
        self.since = since
        self.makeCall = makeCall
    }

    /// The call for the next page; nil once the last page (or a bound) was reached.
    var nextCall: APICall<CatbirdRequestPage>? {
        if let joined {
            guard joined.hasMore, pages < Self.maximumPages, joined.requests.count < Self.maximumEntries else { return nil }
        }
        let left = Self.maximumEntries - (joined?.requests.count ?? 0)
        return makeCall(since, min(Self.pageSize, left))
    }

    mutating func add(_ page: CatbirdRequestPage) {
        pages += 1
        since = page.nextSince
        guard var joined else {
            joined = page
            return
        }
        joined.requests += page.requests
        joined.hasMore = page.hasMore
        joined.nextSince = page.nextSince
        joined.nextBefore = page.nextBefore
        joined.sizeLimited = page.sizeLimited
        if let pruned = page.prunedThrough { joined.prunedThrough = max(joined.prunedThrough ?? pruned, pruned) }
        if page.requests.isEmpty { pages = Self.maximumPages }  // nothing more to read from here
        self.joined = joined
    }

    /// Reads every page (up to the bounds) with `perform`.
    static func read(
        since: Int64?, limit: Int?, _ makeCall: @escaping @Sendable (_ since: Int64?, _ limit: Int?) -> APICall<CatbirdRequestPage>,
        _ perform: (APICall<CatbirdRequestPage>) throws -> CatbirdRequestPage
    ) throws -> CatbirdRequestPage {
        if let limit { return try perform(makeCall(since, limit)) }
        var pages = MatchPages(since: since) { makeCall($0, $1) }
        while let call = pages.nextCall { pages.add(try perform(call)) }
        // nextCall is never nil before the first page.
        guard let joined = pages.joined else { preconditionFailure("no page read") }
        return joined
    }

    /// Reads every page (up to the bounds) with `perform`.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    static func read(
        since: Int64?, limit: Int?, _ makeCall: @escaping @Sendable (_ since: Int64?, _ limit: Int?) -> APICall<CatbirdRequestPage>,
        _ perform: (APICall<CatbirdRequestPage>) async throws -> CatbirdRequestPage
    ) async throws -> CatbirdRequestPage {
        if let limit { return try await perform(makeCall(since, limit)) }
        var pages = MatchPages(since: since) { makeCall($0, $1) }
        while let call = pages.nextCall { pages.add(try await perform(call)) }
        guard let joined = pages.joined else { preconditionFailure("no page read") }
        return joined
    }
}
