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
/// entries; a client that hangs up ends the wait then (``JournalWaitHangUp``).
///
/// A quick look (``largePages`` set) finds the page first and builds it only when its JSON is
/// expected to be small (``JournalRoutes/quickPageBytes``); a larger page is built on
/// ``largePages``, the bulk lane, so that tenants paging journals of large bodies never hold the
/// quick threads (try9b F12).
struct JournalLongPoll: Sendable {
    /// The longest `wait` accepted: 60 seconds.
    static let maxWait = Duration.seconds(60)

    let dependencies: RouteDependencies
    let lane: LookLane
    /// Where a quick look's page expected to pass ``JournalRoutes/quickPageBytes`` is built
    /// (the tenant's bulk lane); nil for a slow look, which builds every page itself.
    let largePages: TenantLane?
    let tenant: TenantID
    let query: JournalQuery
    let deadline: ContinuousClock.Instant
    /// The tenant's deletion floor when the poll began (``JournalDeletions/hiddenThrough(_:)``):
    /// once it moved, the journal shown was cleared or dropped, and an empty look answers at
    /// once. The tenant's own floor, not a count of every tenant's clears: another tenant's
    /// clear must not end this poll early.
    let hiddenAtStart: Int64

    func start(_ responder: HTTPResponder) {
        let hangUp = JournalWaitHangUp(responder, waiters: dependencies.journal.waiters)
        lane.run { look(responder, hangUp, reset: false) }
    }

    /// Reads the page; answers when it has entries or time is up, else waits for a commit.
    /// `reset`: the tenant's journal was cleared or the tenant dropped while the poll waited
    /// (its deletion floor does not move when the journal was empty: tester45a-F10).
    private func look(_ responder: HTTPResponder, _ hangUp: JournalWaitHangUp, reset: Bool) {
        guard responder.isWaiting else { return }  // its client left (or the server stopped): nothing to look for
        do {
            // The latest id first: an entry committed after it wakes the waiter below.
            let latest = try dependencies.journal.latestID(of: tenant)
            let remaining: Duration
            if let largePages {
                let plan = try dependencies.journal.pagePlan(of: tenant, query)
                remaining = deadline - ContinuousClock.now
                if !plan.isEmpty && plan.expectedBytes > JournalRoutes.quickPageBytes {
                    largePages.run { send(plan, responder) }
                    return
                }
                guard plan.isEmpty, remaining > .zero, !reset, !wasReset else { return send(plan, responder) }
            } else {
                let page = try dependencies.journal.encodedPage(of: tenant, query)
                remaining = deadline - ContinuousClock.now
                guard page.entryCount == 0, remaining > .zero, !reset, !wasReset else {
                    responder.send(try JournalFollowing.answer(page, tenant: tenant, dependencies))
                    return
                }
            }
            hangUp.wait(for: tenant, after: latest, timeout: remaining) { wake in
                lane.run { look(responder, hangUp, reset: wake == .reset) }
            }
        } catch {
            responder.send(ErrorAnswer.response(for: error, log: dependencies.log))
        }
    }

    /// Whether a tenant's journal was cleared or dropped since the poll began.
    private var wasReset: Bool {
        dependencies.journal.deletions.hiddenThrough(tenant) != hiddenAtStart
    }

    /// Builds `plan`'s page and answers with it.
    private func send(_ plan: JournalPagePlan, _ responder: HTTPResponder) {
        do {
            let page = try dependencies.journal.encodedPage(of: tenant, plan, query)
            responder.send(try JournalFollowing.answer(page, tenant: tenant, dependencies))
        } catch {
            responder.send(ErrorAnswer.response(for: error, log: dependencies.log))
        }
    }
}
