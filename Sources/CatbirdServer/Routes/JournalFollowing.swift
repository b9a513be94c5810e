import CatbirdDomain
import CatbirdHTTP

/// What the journal listing (`GET /catbird/api/requests`) adds to its page for a client that
/// follows the journal with `since=` (docs/protocol.md#following-the-journal), so that it can
/// tell when the ids it holds are not this journal's (tester finding T18A-F3: the web page kept
/// its `since` across a restart on a fresh database, `--db :memory:` or a deleted file, whose
/// ids start again at 1, and showed `live` but no new request until reloaded):
/// - `newestId`: the tenant's newest entry id, whatever the listing's filters (0 when it has
///   none), read after the page was built (``Journal/visibleIDs(of:)``); a `since` above it names
///   entries this journal does not have (cleared, dropped, or never there);
/// - `oldestId`: the tenant's oldest entry id, read with it (0 when it has none); entries a
///   client holds below it are gone (tester finding tester20b-F1: after a drop or clear the
///   next entry's id is above the old `since`, so `newestId` alone did not tell, and the web page
///   showed the new entry above the dropped ones);
/// - `serverRun`: an opaque id, new each time the server starts (``RouteDependencies/serverRun``).
///
/// All are added members: the page's other fields keep their shape (Catbird 0.11 clients and
/// ``CatbirdRequestPage`` read the page as before).
enum JournalFollowing {
    /// The listing's answer: `page` with `newestId`, `oldestId` and `serverRun` added.
    /// - Throws: `SQLiteError` when the ids cannot be read.
    static func answer(_ page: EncodedJournalPage, tenant: TenantID, _ dependencies: RouteDependencies) throws -> HTTPResponse {
        var page = page
        let ids = try dependencies.journal.visibleIDs(of: tenant)
        page.appendMember("newestId", json: String(ids.newest))
        page.appendMember("oldestId", json: String(ids.oldest))
        page.appendMember("serverRun", json: "\"\(dependencies.serverRun)\"")
        return JSONBody.page(page)
    }
}
