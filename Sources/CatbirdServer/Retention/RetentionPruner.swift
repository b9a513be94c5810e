import CatbirdDomain
import CatbirdStorage
import CatbirdSupport
import Foundation
import Synchronization

/// Runs ``Retention`` passes on its own thread, one at start and then every `interval` (at
/// once while a pass leaves work), off the request path, and
/// keeps the totals for `/catbird/api/info` and `/catbird/metrics`. Every pass that removes
/// something is logged: the first at warning level (so a quiet log still shows that pruning
/// happens), later ones at info level. A failed pass is logged as an error and retried at the
/// next interval.
final class RetentionPruner: Sendable {
    let retention: Retention
    private let interval: Duration
    private let log: Logger
    private let totals = Mutex(RetentionPass())
    /// Guards `stopping`; the thread waits on it between passes.
    private let condition = NSCondition()
    /// `nonisolated(unsafe)`: read and written only while `condition` is locked.
    nonisolated(unsafe) private var stopping = false
    nonisolated(unsafe) private var stopped = true

    init(retention: Retention, interval: Duration, log: Logger) {
        self.retention = retention
        self.interval = interval
        self.log = log
    }

    /// Everything removed since the server started.
    var pruned: RetentionPass { totals.withLock { $0 } }

    /// Starts the thread, also when the policy prunes nothing: its passes then only forget the
    /// ended work of tenants' activity entries (``CatbirdDomain/Retention/prune(now:maxBatches:)``),
    /// which grew with every parallel id ever seen while no pass ran (tester finding
    /// tester42b-F10: 220,000 made-up ids, 43 MB never given back, with every limit off).
    func start() {
        condition.lock()
        stopped = false
        condition.unlock()
        let thread = Thread.named("catbird-prune") { [self] in run() }
        thread.start()
    }

    /// Stops the thread after the batch in progress; waits for it.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    /// A pass at once (a restarted server catches up straight away), then one per interval.
    private func run() {
        var logged = false
        var saidMoved = false  // a deleted, replaced or truncated file fails every pass: said once (T13-F8, tester21b-F13)
        while true {
            var unfinished = false
            do {
                let pass = try retention.prune()
                unfinished = pass.unfinished
                totals.withLock { $0 += pass }  // also when empty: the journal's bytes as counted now
                if !pass.isEmpty {
                    let message = "retention: " + Self.describe(pass, retention.policy)
                    if logged { log.info(message) } else { log.warning(message + " (further passes are logged at info level)") }
                    logged = true
                }
            } catch {
                let moved = DatabaseFileLock.isFileFault(error)
                if !(moved && saidMoved) { log.error("retention: a pruning pass failed, retrying in \(interval.timeInterval) s: \(error)") }
                saidMoved = moved
            }
            condition.lock()
            // A pass that stopped at its budget is followed at once (the connection was let go
            // between its statements, so requests were not held up).
            let deadline = unfinished ? Date() : Date().addingTimeInterval(interval.timeInterval)
            while !stopping && Date() < deadline { _ = condition.wait(until: deadline) }
            if stopping {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
        }
    }

    /// The idle tenants `pass` dropped, by id as reasons name them (`tenant "s1", tenant "s2"`),
    /// the first ``RetentionPass/namedIdleTenants``, then how many more.
    static func named(_ pass: RetentionPass) -> String {
        let named = pass.idleTenantIDs.map(\.named).joined(separator: ", ")
        let more = pass.idleTenants - pass.idleTenantIDs.count
        return more > 0 ? named + " and \(more) more" : named
    }

    /// One line: what a pass removed and under which limit.
    static func describe(_ pass: RetentionPass, _ policy: RetentionPolicy) -> String {
        var parts: [String] = []
        if pass.journalRowsByAge > 0, let age = policy.journalMaxAge {
            parts.append("\(pass.journalRowsByAge) journal rows older than \(RetentionDuration.format(age))")
        }
        if pass.journalRowsOverLimit > 0, let rows = policy.journalMaxRows {
            parts.append("\(pass.journalRowsOverLimit) journal rows over the limit of \(rows)")
        }
        if pass.journalRowsOverBytes > 0, let bytes = policy.journalMaxBytes {
            parts.append("\(pass.journalRowsOverBytes) journal rows over the limit of \(bytes) bytes")
        }
        if pass.idleTenants > 0 || pass.idleTenantJournalRows > 0, let ttl = policy.tenantTTL {
            // A tenant active again during its journal's deletion is kept (its `prunedThrough`
            // says what went): the rows are then of tenants still being deleted or kept.
            parts.append(
                pass.idleTenants > 0
                    ? "\(pass.idleTenants) tenant(s) idle longer than \(RetentionDuration.format(ttl)) "
                        + "(with \(pass.idleTenantMocks) mocks and \(pass.idleTenantJournalRows) journal rows: \(Self.named(pass)))"
                    : "\(pass.idleTenantJournalRows) journal rows of tenant(s) idle longer than \(RetentionDuration.format(ttl)) "
                        + "(not dropped yet, or active again and kept)")
        }
        return "pruned " + parts.joined(separator: ", ")
    }
}
