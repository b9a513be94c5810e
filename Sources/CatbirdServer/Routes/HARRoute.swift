import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// `GET /catbird/api/requests.har` (docs/protocol.md#har-export): the caller's journal as a
/// HAR 1.2 file, streamed (``HARExport``). Takes the journal listing's filters (`since`,
/// `before`, `order`, `method`, `url`, `status`, `answeredBy`, `bodies`); `limit` is the most
/// entries to export (default: every one selected), not a page size; `wait` is refused.
enum HARRoute {
    static let path = "/catbird/api/requests.har"

    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            // The listing's names but `wait`, checked as the listing's are; `wait` is refused
            // with its own reason and not listed as known.
            // The stream keeps the tenant's slow admission until its last page was sent (the route table).
            Route("GET", path, query: JournalRoutes.journalQueryNames.filter { $0 != "wait" }, lane: .slow) { context in
                let (query, limit) = try harQuery(from: context.query)
                let export: HARExport
                do {
                    export = try HARExport(
                        journal: dependencies.journal, tenant: context.tenant, query: query, limit: limit,
                        origin: dependencies.origin.url, journalBodyLimit: dependencies.settings.journalBodyLimit,
                        budget: dependencies.bodyBudget, log: dependencies.log)
                } catch let refusal as APIError {
                    // The budget's 503, answered as a large control answer's is: not logged
                    // (tester27b-F3: one `[error]` line per refused export, its reason twice).
                    return refusal.response
                }
                // Its pages after the first are made on the tenant's slow lane, as the first was.
                let lane = context.lane(.slow)
                let pages: @Sendable (_ job: @escaping @Sendable () -> Void) -> Void = { job in
                    if let lane { lane.run(job) } else { job() }
                }
                // The tenant is at work until the export's last part was sent (or its client left).
                let work = HARExportActivity(dependencies.tenants.activity, tenant: context.tenant)
                // HEAD declares GET's length (its body is never read): chunked, it would get a stray last chunk.
                let length = context.request.method == "HEAD" ? UInt64(try export.byteCount()) : nil
                var response = HTTPResponse(
                    status: 200,
                    headers: [
                        "Content-Type": "application/json; charset=utf-8",
                        "Content-Disposition": "attachment; filename=\"catbird.har\"",
                        "X-Content-Type-Options": "nosniff",
                    ],
                    content: .stream(length: length, export.body(makingPagesOn: pages).whenEnded { [work] in work.end() }))
                response.budgetShare = export.share  // the page held, counted until sent or closed
                return response
            }.refusing("wait", because: "'wait' is not accepted by the HAR export (it exports what the journal holds now)"),
        ]
    }

    /// The listing's filters, and `limit` as the most entries to export.
    /// - Throws: 400 naming the parameter, as the listing does (`wait` never gets here: the route refuses it).
    static func harQuery(from query: [(name: String, value: String)]) throws(APIError) -> (JournalQuery, limit: Int?) {
        var limit: Int?
        var listing: [(name: String, value: String)] = []
        for (name, value) in query {
            switch name {
            case "limit":
                guard let count = QueryParameters.wholeNumber(value).map(Int.init), count >= 1 else {
                    // All digits, yet no Int: a whole number too large, not a wrong one (T18B note).
                    throw QueryParameters.refusal("limit", value, otherwise: "'limit' must be a whole number of entries, 1 or more")
                }
                limit = count
            default:
                listing.append((name, value))
            }
        }
        return (try JournalRoutes.journalQuery(from: listing), limit)
    }
}
