import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// `GET /catbird/metrics` → the server's metrics in the Prometheus text format (version 0.0.4;
/// names, labels and units in docs/operations.md). Counts cover the whole server, every
/// tenant together; no tenant's id or data appears. Counters start at 0 when the server starts.
enum MetricsRoute {
    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            // On metrics' own thread: the stored counts wait for a read connection, and a
            // scrape takes no tenant's turn (ControlLane.metrics). Ignores a query, as the
            // health probe does (InfoRoutes).
            Route("GET", "/catbird/metrics", query: nil, lane: .metrics) { _ throws(APIError) in
                let text = render(dependencies)
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": PrometheusText.contentType], body: Array(text.utf8))
            },
        ]
    }

    /// The scrape's text. The stored tenant and mock counts are read from the database; when
    /// that read fails (the file moved away, corrupt pages), their two gauges are given without
    /// a sample and the rest is answered as usual, so that the metrics of a degraded server (the
    /// journal writer's failures, held hits, dropped rows) can still be scraped: they matter
    /// most then (re-read of flush17: the whole scrape was a 503 "database unavailable").
    private static func render(_ dependencies: RouteDependencies) -> String {
        let writer = dependencies.journal.writerStatistics()
        let requests = dependencies.metrics.requests.snapshot()
        let stored: (tenants: Int, mocks: Int)?
        do {
            stored = try dependencies.tenants.counts()
        } catch {
            dependencies.log.error("metrics: reading the stored tenant and mock counts failed (given without a sample): \(error)")
            stored = nil
        }

        var out = PrometheusText()
        out.metric("catbird_build_info", .gauge, help: "Always 1; the version label is the server's version.")
        out.sample("catbird_build_info", labels: ["version": CatbirdServer.version], 1)

        out.metric(
            "catbird_requests_total", .counter,
            help: "Requests answered, by who answered (control = the /catbird routes; otherwise the journal's answered_by) and status class.")
        for (who, answerer) in RequestMetrics.answerers.enumerated() {
            for (index, statusClass) in RequestMetrics.statusClasses.enumerated() {
                out.sample("catbird_requests_total", labels: ["answered_by": answerer, "status_class": statusClass], requests.requests[who][index])
            }
        }
        out.histogram(
            "catbird_request_duration_seconds",
            help: "Seconds from a request's arrival to its answer being ready (a mock's delay not included).",
            bounds: RequestMetrics.latencyBounds, atMost: requests.latencyAtMost, count: requests.latencyCount,
            sum: requests.latencySum)
        out.metric(
            "catbird_requests_unanswered_total", .counter,
            help: "Requests that ended with nothing sent (journaled 499 or 408), by why: not in catbird_requests_total.")
        for (index, why) in RequestMetrics.Unanswered.allCases.enumerated() {
            out.sample("catbird_requests_unanswered_total", labels: ["reason": why.rawValue], requests.unanswered[index])
        }

        out.metric(
            "catbird_regexp_budget_overruns_total", .counter,
            help: "Mocks skipped because their regular expression ran out of a request's 100 ms evaluation budget (one per mock and request).")
        out.sample("catbird_regexp_budget_overruns_total", dependencies.metrics.regexpBudgetOverruns.load(ordering: .relaxed))
        let metrics = dependencies.metrics
        let lanes: [(name: String, help: String, value: Int)] = [
            ("catbird_slow_matching_requests_total",
             "Requests whose regular expressions took longer than a worker's 1 ms slice, or whose 404 first had to build the near-miss catalogs of more than 1,000 mocks, matched on the matching lane in their tenant's turn.",
             metrics.slowMatchingRequests.load(ordering: .relaxed)),
            ("catbird_slow_matching_refused_total", "Requests refused with 429 because their tenant already had 32 requests on the matching lane.",
             metrics.slowMatchingRefused.load(ordering: .relaxed)),
            ("catbird_body_lane_requests_total",
             "Requests whose body over 64 KiB a body pattern had to read, matched on the body lane in their tenant's turn.",
             metrics.bodyLaneRequests.load(ordering: .relaxed)),
            ("catbird_body_lane_refused_total", "Requests refused with 429 because their tenant already had 32 requests on the body lane.",
             metrics.bodyLaneRefused.load(ordering: .relaxed)),
        ]
        for lane in lanes {
            out.metric(lane.name, .counter, help: lane.help)
            out.sample(lane.name, lane.value)
        }
        let parked = dependencies.parkedRequests
        out.metric(
            "catbird_parked_requests", .gauge,
            help: "Requests parked holding their tenant's places (mock delays, long polls, waits, forwarded requests), all tenants; at most \(parked.limit) per tenant.")
        out.sample("catbird_parked_requests", parked.total)
        out.metric(
            "catbird_parked_refused_total", .counter,
            help: "Requests refused with 429 because their tenant already had \(parked.limit) requests parked (1/\(ParkedRequests.slotShare) of the connection slots).")
        out.sample("catbird_parked_refused_total", parked.refused.load(ordering: .relaxed))
        renderConnections(dependencies.connections, limit: parked.connectionLimit, into: &out)
        if let recorder = dependencies.upstream?.recorder {
            out.metric(
                "catbird_recordings_failed_total", .counter,
                help: "Forwarded answers record mode could not write as file mocks, or that replay could not serve as received (journaled with a problem 'not recorded: ...'); not counted: answers a rule leaves unrecorded, such as another method's where a GET's recording is kept.")
            out.sample("catbird_recordings_failed_total", recorder.failures.load(ordering: .relaxed))
        }
        out.metric("catbird_journal_queue_entries", .gauge, help: "Journal entries not yet written to SQLite: queued, and in the round being written.")
        out.sample("catbird_journal_queue_entries", writer.queuedEntries)
        out.metric("catbird_journal_queue_bytes", .gauge, help: "Bytes of bodies, headers and URLs not yet written: queued, and in the round being written.")
        out.sample("catbird_journal_queue_bytes", writer.queuedBytes)
        out.metric("catbird_journal_queue_longest_entries", .gauge, help: "The most journal entries that were waiting at once since the server started.")
        out.sample("catbird_journal_queue_longest_entries", writer.longestQueue)
        out.metric("catbird_journal_queue_longest_bytes", .gauge, help: "The most bytes that were waiting at once since the server started.")
        out.sample("catbird_journal_queue_longest_bytes", writer.longestQueueBytes)
        out.metric(
            "catbird_journal_held_entries", .gauge,
            help: "Large journal entries held out of the queue, their answers with them, because their tenant's large entries already fill its 1 MiB share.")
        out.sample("catbird_journal_held_entries", writer.heldEntries)
        out.metric("catbird_journal_held_total", .counter, help: "Large journal entries held for their tenant's share of the queue since the server started.")
        out.sample("catbird_journal_held_total", writer.heldForShare)
        out.histogram(
            "catbird_journal_commit_rows", help: "Journal rows per SQLite transaction of the journal writer.",
            bounds: JournalWriterStatistics.rowsPerCommitBounds.map(Double.init), atMost: writer.commitsAtMost,
            count: writer.commits, sum: Double(writer.rows))
        out.metric("catbird_journal_dropped_rows_total", .counter, help: "Journal rows dropped (each drop logged): after three failed writes for a lasting cause, appended to a full queue while the writer failed, or at a stop while the database took no writes.")
        out.sample("catbird_journal_dropped_rows_total", writer.droppedRows)
        out.metric(
            "catbird_log_lines_dropped_total", .counter,
            help: "Log lines dropped because standard error did not take them at once (its reader stopped reading) or its write failed (a file at the file-size limit, a full disk); the next line written says how many and why.")
        out.sample("catbird_log_lines_dropped_total", Int(Logger.droppedLines))
        out.metric(
            "catbird_journal_dropped_amendments_total", .counter,
            help: "Problems added to (or recordings' file paths changed in) journal rows already queued, such as a client that hung up mid-answer, dropped with their failed write (each logged).")
        out.sample("catbird_journal_dropped_amendments_total", writer.droppedAmendments)
        out.metric(
            "catbird_journal_held_hits", .gauge,
            help: "Mock hits of dropped journal rows that the stored mocks' hits and remaining_limit do not show yet: written once the database takes writes again, lost (and logged) if the server stops first.")
        out.sample("catbird_journal_held_hits", writer.heldHits)
        let counts = dependencies.journal.countStatistics
        out.metric(
            "catbird_journal_count_parts_total", .counter,
            help: "Parts of counts over 100,000 ids or more shared with a spare thread, by who counted them: caller (the control thread) or spare_thread.")
        out.sample("catbird_journal_count_parts_total", labels: ["counted_by": "caller"], counts.partsByCaller.load(ordering: .relaxed))
        out.sample("catbird_journal_count_parts_total", labels: ["counted_by": "spare_thread"], counts.partsBySpareThread.load(ordering: .relaxed))

        let pruned = dependencies.pruner.pruned
        out.metric(
            "catbird_pruned_journal_rows_total", .counter,
            help: "Journal rows deleted by retention, by reason: age (--journal-max-age), max_rows (--journal-max-rows), max_bytes (--journal-max-bytes), tenant_ttl (with an idle tenant).")
        out.sample("catbird_pruned_journal_rows_total", labels: ["reason": "age"], pruned.journalRowsByAge)
        out.sample("catbird_pruned_journal_rows_total", labels: ["reason": "max_rows"], pruned.journalRowsOverLimit)
        out.sample("catbird_pruned_journal_rows_total", labels: ["reason": "max_bytes"], pruned.journalRowsOverBytes)
        out.sample("catbird_pruned_journal_rows_total", labels: ["reason": "tenant_ttl"], pruned.idleTenantJournalRows)
        out.metric("catbird_pruned_tenants_total", .counter, help: "Tenants dropped by retention for being idle longer than --tenant-ttl.")
        out.sample("catbird_pruned_tenants_total", pruned.idleTenants)
        out.metric("catbird_pruned_mocks_total", .counter, help: "Mocks deleted with those tenants.")
        out.sample("catbird_pruned_mocks_total", pruned.idleTenantMocks)
        if let bytes = pruned.journalBytes {
            out.metric(
                "catbird_journal_bytes", .gauge,
                help: "The journal's bytes as --journal-max-bytes counts them (rows' texts and blobs, shared bodies once), at the last pruning pass.")
            out.sample("catbird_journal_bytes", bytes)
        }

        out.metric("catbird_tenants", .gauge, help: "Tenants stored, the default tenant included.")
        if let stored { out.sample("catbird_tenants", stored.tenants) }
        out.metric("catbird_mocks", .gauge, help: "Mocks stored, every tenant's.")
        if let stored { out.sample("catbird_mocks", stored.mocks) }
        out.metric(
            "catbird_tenant_memory_entries", .gauge,
            help: "Per-tenant entries held in memory, by kind: mock_tables, journal_deletions (one tenant's cleared or dropped journal still being deleted), retention_notes, journal_commits (remembered commit ids), journal_waiters, activity (work in flight or just ended). A dropped tenant's go with it.")
        for (kind, count) in dependencies.tenants.memoryEntries() {
            out.sample("catbird_tenant_memory_entries", labels: ["kind": kind], count)
        }
        // tester39b-F8: past the budget every tenant's large bodies get 503, with nothing to see it coming.
        out.metric(
            "catbird_buffered_bytes", .gauge,
            help: "Bytes of request bodies, forwarded answers and large control answers held in memory now, against --max-buffered-bodies (catbird_buffered_bytes_limit).")
        out.sample("catbird_buffered_bytes", dependencies.bodyBudget.taken)
        out.metric("catbird_buffered_bytes_limit", .gauge, help: "--max-buffered-bodies: the bytes catbird_buffered_bytes may reach; past it, 503.")
        out.sample("catbird_buffered_bytes_limit", dependencies.bodyBudget.limit)
        out.metric("catbird_database_bytes", .gauge, help: "Bytes on disk of the SQLite database and its write-ahead log.")
        out.sample("catbird_database_bytes", dependencies.metrics.databaseBytes())
        return out.text
    }

    /// The connection slots: open now against the limit, how often all were taken, and the
    /// connections the server closed itself, by why (tester finding tester41a-F6: one
    /// tenant's stalled uploads or unread downloads held every slot, and the scrape showed a
    /// healthy host; answers reset unread are counted in catbird_requests_total by their status too).
    private static func renderConnections(_ connections: HTTPConnectionCounts, limit: Int, into out: inout PrometheusText) {
        out.metric("catbird_connections", .gauge, help: "Client connections open now, against catbird_connections_limit.")
        out.sample("catbird_connections", connections.open)
        out.metric("catbird_connections_limit", .gauge, help: "Client connections open at most (the open-file limit less a reserve, halved with --redirect-url, --proxy or --mocks-dir); past it, new clients wait to be accepted.")
        out.sample("catbird_connections_limit", limit)
        out.metric(
            "catbird_connection_limit_reached_total", .counter,
            help: "Times every connection slot became taken, so that new clients waited to be accepted.")
        out.sample("catbird_connection_limit_reached_total", connections.limitReached)
        out.metric(
            "catbird_connections_closed_total", .counter,
            help: "Connections the server closed itself, by why: to make room at the limit (idle, head, body, unread answer, upload over its tenant's share, keep-alive connection over its tenant's share) or past --head-timeout (head, stalled body, unread answer).")
        for reason in HTTPConnectionCounts.CloseReason.allCases {
            out.sample("catbird_connections_closed_total", labels: ["reason": reason.label], connections.closed(reason))
        }
    }
}
