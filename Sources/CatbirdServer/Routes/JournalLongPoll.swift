import CatbirdDomain
import CatbirdHTTP

/// `GET /catbird/api/requests?since=<id>&wait=<seconds>` (docs/protocol.md#journal): answers as
/// soon as the tenant's journal has at least one entry after `since` that matches the listing's
/// filters, or with an empty page once `wait` seconds have passed. Without `wait` (or 0) it
/// answers at once, like a plain listing.
///
/// Holds no thread while waiting: each look runs in the tenant's turn on its lane
/// (docs/tenancy.md#fair-shares: the quick lane, or for a filtered listing, whose look may read
/// the whole journal, the slow lane one look of the tenant at a time), and between looks a
/// ``JournalWaiters`` callback waits for the journal writer to commit more of the tenant's
/// entries.
struct JournalLongPoll: Sendable {
    /// The longest `wait` accepted: 60 seconds.
    static let maxWait = Duration.seconds(60)

    let dependencies: RouteDependencies
    let lane: LookLane
    let tenant: TenantID
    let query: JournalQuery
    let deadline: ContinuousClock.Instant

    func start(_ responder: HTTPResponder) {
        lane.run { look(responder) }
    }

    /// Reads the page; answers when it has entries or time is up, else waits for a commit.
    private func look(_ responder: HTTPResponder) {
        do {
            // The latest id first: an entry committed after it wakes the waiter below.
            let latest = try dependencies.journal.latestID(of: tenant)
            let page = try dependencies.journal.encodedPage(of: tenant, query)
            let remaining = deadline - ContinuousClock.now
            guard page.entryCount == 0, remaining > .zero else {
                responder.send(JSONBody.page(page))
                return
            }
            dependencies.journal.waiters.wait(for: tenant, after: latest, timeout: remaining) { _ in
                lane.run { look(responder) }
            }
        } catch {
            responder.send(ErrorAnswer.response(for: error, log: dependencies.log))
        }
    }
}
