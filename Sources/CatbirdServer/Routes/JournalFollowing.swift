import CatbirdDomain
import CatbirdHTTP

/// What the journal listing (`GET /catbird/api/requests`) adds to its page for a client that
/// follows the journal with `since=` (docs/protocol.md#following-the-journal), so that it can
/// tell when the ids it holds are not this journal's (tester finding T18A-F3: the web page kept
/// its `since` across a restart on a fresh database, `--db :memory:` or a deleted file, whose
/// ids start again at 1, and showed `live` but no new request until reloaded):
/// - `newestId`: the tenant's newest entry id, whatever the listing's filters (0 when it has
///   none), read after the page was built (``Journal/newestID(of:)``); a `since` above it names
///   entries this journal does not have (cleared, dropped, or never there);
/// - `serverRun`: an opaque id, new each time the server starts (``RouteDependencies/serverRun``).
///
/// Both are added members: the page's other fields keep their shape (Catbird 0.11 clients and
/// ``CatbirdRequestPage`` read the page as before).
enum JournalFollowing {
    /// The listing's answer: `page` with `newestId` and `serverRun` added.
    /// - Throws: `SQLiteError` when the newest id cannot be read.
    static func answer(_ page: EncodedJournalPage, tenant: TenantID, _ dependencies: RouteDependencies) throws -> HTTPResponse {
        var page = page
        page.appendMember("newestId", json: String(try dependencies.journal.newestID(of: tenant)))
        page.appendMember("serverRun", json: "\"\(dependencies.serverRun)\"")
        return JSONBody.page(page)
    }
}
