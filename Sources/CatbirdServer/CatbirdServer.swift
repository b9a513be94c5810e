import CatbirdDomain
import CatbirdHTTP
import CatbirdOutbound
import CatbirdStorage
import CatbirdSupport
import Foundation
import Synchronization

/// The Catbird mock server: opens and migrates the database, loads the mocks, starts the
/// journal writer and the HTTP server.
///
/// ```swift
/// let server = try CatbirdServer(settings: .init(port: 0, databasePath: path))
/// try server.start()
/// // … http://127.0.0.1:\(server.port)
/// server.stop()
/// ```
public final class CatbirdServer: Sendable {
    /// This server's version, as `GET /catbird/version` and `catbird --version` print it.
    public static let version = "0.1.0"
    /// Read connections of the journal: one per control thread (4 slow, 2 quick, 2 bulk, which
    /// build large journal pages, 2 drop, which count a cleared journal, 1 health, 1 metrics),
    /// one per spare thread a count may share its work with (2) and one for retention's count
    /// of each tenant's rows, so no control call waits for a connection another tenant's slow
    /// count holds (docs/tenancy.md#fair-shares).
    static let readConnectionCount = ControlPools.slowThreadCount + ControlPools.quickThreadCount + ControlPools.bulkThreadCount
        + ControlPools.dropThreadCount + ControlPools.healthThreadCount + ControlPools.metricsThreadCount
        + Journal.countHelperLimit + 1

    public let settings: Settings
    private let http: HTTPServer
    /// Sends forwarded requests upstream; nil unless redirect or proxy mode is on.
    private let outbound: OutboundClient?
    /// The threads control routes run on (mock writes, journal reads and deletes, counts, tenant
    /// drops), in a quick and a slow lane shared fairly between tenants, so they never hold a
    /// worker that serves mocks and one tenant's slow work never stalls another's updates.
    private let controlPools = ControlPools()
    /// The threads requests whose regular expressions outlast a worker's slice are matched on,
    /// in each tenant's turn (docs/tenancy.md#fair-shares).
    private let matchingLane = MatchingLane()
    /// The threads requests whose body over 64 KiB a body pattern must read are matched on,
    /// in each tenant's turn, apart from the slow regular expressions (docs/tenancy.md#large-bodies).
    private let bodyLane = MatchingLane(name: "catbird-body")
    /// The threads user SQL runs on, one per connection of ``TenantSQL``'s pool: SQL never takes
    /// a control thread, so a burst of slow queries cannot hold up mock updates or journal reads.
    /// At the slow lane's nice value (``ControlPools/slowNiceness``): its read-only queries
    /// yield the cores to the workers that serve mocks (tester finding tester31b-F2).
    private let sqlPool = HTTPWorkPool<TenantID>(
        threadCount: TenantSQL.defaultConnectionCount, perKeyLimit: TenantSQL.runningPerTenant, name: "catbird-sql",
        niceness: ControlPools.slowNiceness)
    private let writer: SerialDatabase
    /// The journal's read connections (listings, counts, entries, tenants, health).
    private let reader: DatabasePool
    /// Deletes cleared and dropped journals in the background.
    private let deletions: JournalDeletions
    private let sql: TenantSQL
    private let journalWriter: JournalWriter
    private let pruner: RetentionPruner
    /// Compiles the stored mocks' regular expressions after the server listens.
    private let storedExpressions: StoredExpressionsCompiler
    /// The mocks, whose sweep of unused body pieces stops before the write connection closes.
    private let mocks: MockStore
    private let location: DatabaseLocation
    private let lock: DatabaseFileLock
    /// The `-wal` and `-shm` as opened: ``stop()`` removes or moves them aside when the file was
    /// deleted or replaced under the server (tester findings T13B-F5, T13B-F1).
    private let companions: DatabaseCompanions
    private let log: Logger
    private let origin = ServerOrigin()
    private let stopped = Mutex(false)
    /// The `/catbird` routes this server answers (what the OpenAPI document must describe).
    let controlRoutes: [Route]

    /// Checks the options that name paths or resources (``Settings/checkOptions()``), then the
    /// port, then opens (creating if needed), checks and migrates the database and
    /// loads the mocks.
    /// - Throws: ``UnusableOption`` when an option names a path or host that cannot be used,
    ///   `HTTPServerError` when the port is taken (before the database is touched),
    ///   `DatabaseFileLock.LockError.inUse` when another server uses the same database file,
    ///   ``DatabaseUnusable`` when the file cannot be used (not ours, corrupt, read-only, newer
    ///   schema, a full disk while migrating; README.md#storage-faults), `PatternError` when a
    ///   stored mock's body pattern is no longer accepted (its regular expressions are compiled
    ///   after listening, ``StoredExpressionsCompiler``), `FileMockError` when the mocks directory is missing,
    ///   ``StartupStopped`` when `isStopping` said yes during the mocks directory's sweep.
    /// - Parameter isStopping: whether a termination signal came meanwhile (the `catbird`
    ///   command's; asked during start-up work that can take long: the sweep of a large mocks
    ///   directory, `--mocks-dir /`, ``RecordingTemporaryFile/removeStale(under:isStopping:)``).
    public init(settings: Settings, isStopping: () -> Bool = { false }) throws {
        self.settings = settings
        try settings.checkOptions()
        try HTTPServer.checkAvailable(host: settings.host, port: settings.port)
        let configuration = HTTPServer.Configuration(
            host: settings.host, port: settings.port,
            threadCount: settings.workerThreads,
            maxBodySize: settings.maxBodySize, connectionLimit: settings.connectionLimit ?? settings.defaultConnectionLimit,
            maxBufferedBodies: settings.maxBufferedBodies, headTimeout: settings.headTimeout,
            budgetHolderHeader: TenantID.headerName)
        // Forwarded answers wait for their clients in the same budget as request bodies (try8b F1).
        outbound = settings.redirectURL != nil || settings.proxyEnabled
            ? OutboundClient(
                timeout: settings.upstreamTimeout ?? Settings.defaultUpstreamTimeout, maxResponseSize: settings.maxBodySize, caFile: settings.upstreamCAFile,
                budget: configuration.bodyBudget) : nil
        let log = Logger(level: settings.logLevel)
        self.log = log
        location = DatabaseLocation(settings.databasePath)
        // Before the file is touched: an older library would fail only at the first amendment.
        try SQLiteVersion.check()
        let claimed: DatabaseFileLock
        do {
            claimed = try DatabaseFileLock(databasePath: location.path)
        } catch {
            throw DatabaseUnusable.from(error, path: location.shown) ?? error
        }
        lock = claimed
        if let left = claimed.leftWALSize, left > 0 {
            // Tester finding tester42b-F5: a start after a kill -9 or a crash said nothing, and a
            // shard's counts could be short of what was answered just before it.
            let relaxed = settings.durability == .relaxed
                ? ": after a kill or a crash, with --durability relaxed, requests that run answered in its last moments may be missing from the journal and the mocks' hits (after a clean stop, nothing is)"
                : ""
            log.warning(
                "database \(location.shown): its -wal (\(left) bytes) was left by a run that did not stop cleanly (killed or crashed), "
                    + "by a clean stop that could not copy it into the file (whose log says so: a full disk, a busy or read-only "
                    + "file; tester finding tester54c-F4), or by another program; SQLite replays it now" + relaxed)
        }
        if claimed.linkCount > 1 {
            // Tester finding tester42b-F4: a -wal left beside one name is not read through another.
            log.warning(
                "database \(location.shown) has \(claimed.linkCount) names (hard links): SQLite keeps its -wal beside the name it "
                    + "opens, so after a run that did not stop cleanly, start again on the name that run used")
        }
        let shownPath = location.shown
        let faults = StorageFaults(file: claimed) { [log] fault in
            log.warning("database \(shownPath): \(fault.reason) (\(fault.detail)); health answers 503 until a restart (README.md#storage-faults)")
        }
        do {
            try DatabaseUnusable.checkFolder(of: location.path, path: location.shown)
            try DatabaseUnusable.inspect(location.path, path: location.shown, log: log)
            let writeConnection = try Database(path: location.path, mode: .readWrite)
            // Before migrating: a migration's foreign-key check must not meet dropped tenants' rows.
            // Without a migration to apply, the background deletion finishes them after the
            // server listens, as it does while running (the rows are hidden from every read
            // meanwhile): a restart right after a drop of 100,000 rows waited 9-16 s before
            // listening, silently (tester finding try9b F6).
            // Said only when there is something to finish (tester finding try10a F6: every new
            // file logged it, as if a previous run had left work behind).
            if try Schema.hasPendingMigrations(writeConnection), case let pending = try JournalDeletions.pendingCount(writeConnection),
               pending > 0 {
                log.info("database \(settings.databasePath): finishing \(pending) dropped tenants' and cleared journals' deletion(s) before migrating")
                try JournalDeletions.finishPending(writeConnection)
            }
            let applied = try Schema.migrate(writeConnection)
            if !applied.isEmpty { log.info("database \(settings.databasePath): applied migrations \(applied)") }
            try DatabaseUnusable.checkSchema(writeConnection, path: location.shown)
            if let pages = settings.maxDatabasePages {  // https://www.sqlite.org/pragma.html#pragma_max_page_count
                try writeConnection.execute("PRAGMA max_page_count=\(pages)")
            }
            // The journal's insert would otherwise evaluate `answered_by IN (…)` (migrations/0001)
            // by building a temporary b-tree for every row (SQLite 3.40), a seventh of the
            // writer's work per row. Every value this connection writes to a CHECKed column is one
            // the check allows: `answered_by` is one of `CatbirdRequest.AnsweredBy.known` (asserted
            // in JournalRecords), `url_kind` a `PatternMatch.Kind`. Read connections never write.
            // https://www.sqlite.org/pragma.html#pragma_ignore_check_constraints
            try writeConnection.execute("PRAGMA ignore_check_constraints=ON")
            companions = DatabaseCompanions(databasePath: location.path)  // open in WAL mode and migrated: both are there
            faults.watch(companions)  // a -wal deleted under the server is reported (tester29b-F2)
            // A failing checkpoint is reported too (a file made immutable: tester29b-F3).
            let pinned = PinnedWAL(pageSize: Int(try writeConnection.query("PRAGMA page_size").first?[0].intValue ?? 4096), log: log)
            writeConnection.checkpointAutomatically { error, framesLeft in
                if let change = faults.recordCheckpoint(error) { Self.logCheckpoint(change, log: log) }
                if error == nil { pinned.checkpointed(framesLeft: framesLeft) }
            }
            // From now on the file only grows (no VACUUM runs, and without auto-vacuum nothing
            // shrinks it): shorter means truncated under the server (tester21b-F13).
            if try writeConnection.query("PRAGMA auto_vacuum").first?[0].intValue == 0 { claimed.watchSize() }
            // Checks before each write that the file is still at its path (tester finding T13-F8).
            let serialWriter = SerialDatabase(writeConnection, faults: faults, checksFile: true)
            let readPath = location.path
            reader = try DatabasePool(count: Self.readConnectionCount, faults: faults) {
                let connection = try Database(path: readPath, mode: .readOnly)
                // A first read now opens the WAL: a connection's first read deletes the -wal beside
                // a file it finds empty, so one done after `: > catbird.sqlite` would (tester21b-F13).
                _ = try connection.query("PRAGMA schema_version")
                try Journal.registerFunctions(on: connection, decodingBodies: Self.journalBodyDecoder(maxBodySize: settings.maxBodySize))
                return connection
            }
            // Kept only now: should the pool fail (too few file descriptors), the write connection
            // is closed before the catch below removes what this start made (tester21b-F2).
            writer = serialWriter
        } catch {
            claimed.discardCreatedFile()  // a failed start leaves no new, half-made file, nor -wal or -shm, behind
            throw DatabaseUnusable.from(error, path: location.shown) ?? error
        }
        // A start refused from here on (a mocks row, a SIGTERM during the mocks directory's sweep)
        // closes what it opened on the file, the write connection last (the one that removes the
        // -wal and -shm as it closes), then removes what it made (tester21b-F2).
        var openedJournal: JournalWriter?
        var openedSQL: TenantSQL?
        do {
            let mocks: MockStore
            do {
                // Logged before and after: a start-up holding many mocks is seen loading, not hung.
                let stored = try MockStore.storedCount(in: writer)
                if stored.mocks > 0 { log.info("loading \(stored.mocks) mocks of \(stored.tenants) tenants") }
                let began = ContinuousClock.now
                // Each row checked as an `update` is (tester21b-F7); one that fails refuses the file.
                mocks = try MockStore(database: writer, limits: settings.mockLimits, check: MockUpdateCheck.checkStored)
                // Their regular expressions are compiled after listening (try9b F14).
                if stored.mocks > 0 { log.info("loaded \(stored.mocks) mocks in \(Int((ContinuousClock.now - began) / .milliseconds(1))) ms") }
                if mocks.supersededAtStart > 0 {
                    log.warning(
                        "database \(settings.databasePath): deleted \(mocks.supersededAtStart) mocks that a later mock of their "
                            + "tenant with the same pattern replaced (used-up mocks whose rows outlived a stop without a clean "
                            + "shutdown; docs/schema.md#editing-mocks-rows)")
                }
                if mocks.bodiesSweptAtStart > 0 {
                    log.info(
                        "database \(settings.databasePath): deleted the pieces of \(mocks.bodiesSweptAtStart) mock bodies no mock uses "
                            + "(an update cut short, or a removed mock's left at the last stop; docs/schema.md#mock-bodies-in-pieces)")
                }
            } catch {
                throw DatabaseUnusable.from(error, path: location.shown) ?? error
            }
            storedExpressions = StoredExpressionsCompiler(mocks: mocks, log: log)
            self.mocks = mocks
            let journalWriter = JournalWriter(
                database: writer, capacity: settings.journalQueueCapacity, bodyLimit: settings.journalBodyLimit,
                // Strict durability withholds answers and gives their hits back instead (MockServing.settleOnceCommitted).
                holdsWhatFails: settings.durability == .relaxed, releasing: HTTPServer.resumingTogether, log: log)
            self.journalWriter = journalWriter
            openedJournal = journalWriter
            deletions = try JournalDeletions(database: writer, log: log)
            let journal = Journal(
                writer: journalWriter, database: writer, reader: reader, deletions: deletions, pruned: try JournalPruned(database: writer))
            // After migrating: the SQL route's connections shadow the tables migrated above.
            let sql = try TenantSQL(path: location.path, maxValueLength: SQLRoute.maxValueLength(settings), journal: journal)
            self.sql = sql
            openedSQL = sql
            let tenants = TenantDirectory(mocks: mocks, journal: journal, database: writer, reader: reader)
            if settings.retention.tenantTTL != nil { tenants.activity.tracksIdleTimes() }
            pruner = RetentionPruner(
                retention: Retention(policy: settings.retention, directory: tenants), interval: settings.retentionInterval, log: log)
            let dependencies = RouteDependencies(
                mocks: mocks, journal: journal, tenants: tenants,
                sql: sql, sqlPool: sqlPool, log: log,
                files: try Self.fileServing(settings, log: log, isStopping: isStopping),
                upstream: try Self.upstreamServing(settings, client: outbound, log: log, isStopping: isStopping),
                settings: settings, origin: origin, storageFaults: faults, reader: reader, writer: writer,
                metrics: ServerMetrics(databasePath: location.path, openFileSize: { [claimed] in claimed.currentSize() }),
                admin: AdminAccess(token: settings.adminToken),
                pruner: pruner, sentAnswers: SentMockAnswers(inUse: settings.corsPolicy == nil),
                parkedWaits: ParkedWaitBytes(budget: configuration.bodyBudget.limit),
                parkedRequests: ParkedRequests(connectionLimit: configuration.connectionLimit), bodyBudget: configuration.bodyBudget,
                connections: configuration.connectionCounts)
            let handler = CatbirdHandler(dependencies: dependencies, controlPools: controlPools, matchingLane: matchingLane, bodyLane: bodyLane)
            controlRoutes = handler.routes.routes
            http = HTTPServer(configuration: configuration, handler: handler)
        } catch {
            openedJournal?.stop()
            openedSQL?.close()
            reader.close()
            writer.close()
            claimed.discardCreatedFile()
            throw error
        }
    }

    /// The mocks directory's file serving: nil without `--mocks-dir` or while recording.
    /// - Throws: ``FileMockError/notADirectory(path:)``.
    private static func fileServing(_ settings: Settings, log: Logger, isStopping: () -> Bool) throws -> FileServing? {
        guard let path = settings.mocksDirectory, !settings.recordMode else { return nil }
        return FileServing(
            directory: try mocksDirectory(path, settings, log: log, isStopping: isStopping), journalBodyLimit: settings.journalBodyLimit)
    }

    /// The mocks directory at `path`, after the sweep of what recordings cut short left in it
    /// (``RecordingTemporaryFile/removeStale(under:isStopping:)``, tester findings T12-F3,
    /// tester20a-F1, tester20a-F7): each recording finished or undone from its intent, each
    /// temporary file removed, and each kept (one of another running Catbird, or one that could
    /// not be removed) named in a warning (the first ``namedSweptFiles`` of each kind, then a count).
    /// - Throws: ``FileMockError/notADirectory(path:)``; ``StartupStopped`` when `isStopping`
    ///   said yes during the sweep (what it did until then is logged first).
    private static func mocksDirectory(
        _ path: String, _ settings: Settings, log: Logger, isStopping: () -> Bool
    ) throws -> FileMockDirectory {
        let directory = try FileMockDirectory(path: path, mediaTypes: mediaTypes(log), includesQuery: settings.filesIncludeQuery)
        let sweep = RecordingTemporaryFile.removeStale(under: directory.root, isStopping: isStopping)
        logNamed(sweep.recovered, log, more: "recovered {} more such recordings under '\(directory.root)'") { file in
            "recovered '\(file.path)': its recording by process \(file.processID) was cut short between its renames (e.g. by kill -9); "
                + "\(file.what) (docs/files.md#recording)"
        }
        logNamed(sweep.refused, log, more: "did not recover {} more such recordings under '\(directory.root)'") { file in
            "did not recover '\(file.path)': its recording by process \(file.processID) was cut short between its renames (e.g. by kill -9), "
                + "and \(file.reason), where nothing is renamed or written; its intent and temporary files are removed (docs/files.md#recording)"
        }
        logNamed(sweep.removed, log, more: "removed {} more such temporary files under '\(directory.root)'") { file in
            "removed '\(file.path)': a recording's temporary file left by process \(file.processID), \(file.why) (a recording cut short, "
                + "e.g. by kill -9; docs/files.md#recording)"
        }
        logNamed(sweep.running, log, more: "kept {} more temporary files of running Catbirds under '\(directory.root)'") { file in
            "kept '\(file.path)': a recording's temporary file of process \(file.processID)"
                + (file.name.map { " ('\($0)')" } ?? "") + ", a running Catbird that may be recording into this directory "
                + "(it is never served; docs/files.md#recording)"
        }
        logNamed(sweep.kept, log, more: "kept {} more stale temporary files under '\(directory.root)'") { file in
            "kept '\(file.path)': \(file.reason) (it is never served; docs/files.md#recording)"
        }
        if sweep.stopped {
            throw StartupStopped(
                description: "the sweep of '\(directory.root)' for recordings' temporary files was cut short after \(sweep.entries) entries")
        }
        return directory
    }

    /// Logs a warning for each of the first ``namedSweptFiles`` of `files` (`line`), then one
    /// saying how many more (`more`, its `{}` replaced by the count).
    private static func logNamed<File>(_ files: [File], _ log: Logger, more: String, line: (File) -> String) {
        for file in files.prefix(namedSweptFiles) { log.warning(line(file)) }
        if files.count > namedSweptFiles {
            log.warning(more.replacingOccurrences(of: "{}", with: "\(files.count - namedSweptFiles)"))
        }
    }

    /// Files of each kind (recovered, removed, kept) named in the start-up log at most
    /// (``mocksDirectory(_:_:log:isStopping:)``).
    static let namedSweptFiles = 20

    /// The system's media-type table; without one (no `/etc/mime.types`), extensions are not
    /// guessed and a warning says so.
    static func mediaTypes(_ log: Logger) -> MediaTypes {
        if let table = MediaTypes.system() { return table }
        log.warning("no media-type table at \(MediaTypes.systemPaths.joined(separator: " or ")): file mocks get no Content-Type from their extension and Accept picks no extension (install Debian's media-types)")
        return MediaTypes(table: "")
    }

    /// Redirect and proxy modes' forwarding (with record mode's writer): nil when neither is on.
    /// Record mode creates the mocks directory when it is missing.
    /// - Throws: ``FileMockError/notADirectory(path:)``; ``StartupStopped`` (``mocksDirectory(_:_:log:isStopping:)``).
    private static func upstreamServing(
        _ settings: Settings, client: OutboundClient?, log: Logger, isStopping: () -> Bool
    ) throws -> UpstreamServing? {
        guard let client else { return nil }
        var recorder: FileMockRecorder?
        if settings.recordMode, let path = settings.mocksDirectory {
            // What the option check could not foresee (a file system that refuses, such as /proc):
            // the system's reason, not "does not exist" (tester finding tester36a-F5).
            if let failure = Settings.createDirectory(path) {
                throw FileMockError.cannotRecord(path: path, reason: "record mode cannot create the mocks directory: \(failure)")
            }
            recorder = FileMockRecorder(directory: try mocksDirectory(path, settings, log: log, isStopping: isStopping)) { from, to in
                log.info("record mode: moved '\(from)' (and its sidecar) to '\(to)' to record under it; journal entries that named '\(from)' still do (docs/files.md#recording)")
            }
        }
        var forwarding = Forwarding(redirectURL: settings.redirectURL, proxyEnabled: settings.proxyEnabled)
        forwarding.recording = recorder != nil
        var serving = UpstreamServing(
            forwarding: forwarding,
            client: client, recorder: recorder, cors: settings.corsPolicy, admin: AdminAccess(token: settings.adminToken), log: log)
        serving.recordsOnceJournaled = settings.durability == .strict
        return serving
    }

    /// Starts accepting requests.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func start() throws {
        try http.start()
        storedExpressions.start()
        pruner.start()
        deletions.start()
        origin.set("http://\(Self.clientHost(settings.host)):\(http.port)")
    }

    /// The host a client on this machine uses to reach a server bound to `host`: the loopback
    /// address for a wildcard (`0.0.0.0` → `127.0.0.1`, `::` → `[::1]`), a name as the one
    /// address it was bound to (``HTTPServer/boundAddress(of:)``: `localhost` → `127.0.0.1`,
    /// try9a F9), an IPv6 address in brackets, anything else as given. Another spelling of a
    /// wildcard (`0`, `0x0`, `000.000.000.000`, `0:0:0:0:0:0:0:0`) is the loopback address too,
    /// as its bound address says (tester finding tester50c-F6: `http://0.0.0.0:…` was printed).
    static func clientHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::", "::0": return "[::1]"
        default:
            let address = HTTPServer.boundAddress(of: host) ?? host
            switch address {
            case "0.0.0.0": return "127.0.0.1"
            case "::", "::0": return "[::1]"
            default: return address.contains(":") ? "[\(address)]" : address
            }
        }
    }

    /// The base URL the server listens on, usable as is (an IPv6 address in brackets:
    /// `http://[::1]:8080`; a wildcard address as loopback: `http://127.0.0.1:8080` for
    /// `0.0.0.0`); empty before ``start()``.
    public var url: String { origin.url }

    /// The bound port (after ``start()``).
    public var port: UInt16 { http.port }

    /// Requests waiting for their answer without holding a worker thread now (parked for a
    /// delay, a long poll, a control route or a strict journal commit; ``HTTPServer/waitingAnswers``).
    public var waitingAnswers: Int { http.waitingAnswers }

    /// Stops accepting, answers delayed requests at once, writes the queued journal, closes the
    /// database. Safe to call twice.
    /// - Returns: true when the journal writer stored every entry and mock hit appended since
    ///   the start; false when it dropped some (each drop logged as an error: at this stop, the
    ///   file busy or full, or earlier while it could not write), which the CLI's exit status 4
    ///   tells a supervisor (README.md#storage-faults; tester finding tester50a-F5).
    @discardableResult
    public func stop() -> Bool {
        guard stopped.withLock({ state in defer { state = true }; return !state }) else { return journalWriter.stop() }
        journalWriter.stopComing()  // a failing round is not retried while the parts below stop
        // Before the HTTP server answers parked requests 503: a mock change under way gives up
        // (nothing done, its own 503) or gets its own answer (tester24a-F1).
        controlPools.atStop.close(timeout: HTTPServer.momentsAtShutdown, abandon: mocks.abandonWrites)
        http.stop()
        storedExpressions.stop()
        pruner.stop()
        outbound?.shutdown()
        controlPools.stop()
        matchingLane.stop()
        bodyLane.stop()
        sqlPool.stop()
        mocks.stopSweeping()
        let journalStored = journalWriter.stop()
        deletions.stop()
        sql.close()
        reader.close()
        let whereabouts = lock.whereabouts()
        let copiedAtClose = closeWriter(whereabouts)
        if let note = companions.settle(after: whereabouts, movedTo: lock.currentName(), copiedAtClose: copiedAtClose) {
            log.warning("database \(settings.databasePath): \(note)")
        } else if whereabouts != .atItsPath {
            // A -wal at the path now is another file's (another server's, after this file was
            // deleted or replaced: tester finding tester54c-F2, it was called this server's, with
            // "nothing is lost"); settle found none of this server's own there.
            if let left = DatabaseFileLock.size(of: location.path + "-wal") {
                log.warning(
                    "database \(settings.databasePath): the file this server opened is no longer at that path, and its own -wal "
                        + "is not there either (deleted with it?): the changes it took since its last checkpoint went with them; "
                        + "the -wal now at the path (\(left) bytes) is another file's and was left alone")
            }
        } else if lock.truncation == nil, let left = DatabaseFileLock.size(of: location.path + "-wal"), left > 0 {
            // The close's checkpoint could not copy the WAL into the file and remove it (a full
            // disk, an immutable or read-only folder): said now, or the next start's "a run that
            // did not stop cleanly" sent the operator after a crash that did not happen (tester
            // finding tester46b-F1).
            // "Nothing is lost" only when the journal stored everything: after the stop's own
            // "not stored" errors it contradicted them (tester finding tester50a-F5, a lock held
            // by another process, which the guessed causes left out).
            let kept = journalStored
                ? "nothing is lost, the next start replays it"
                : "what it holds is not lost, the next start replays it (the entries logged above as not stored are)"
            log.warning(
                "database \(settings.databasePath): its -wal (\(left) bytes) could not be copied into the file and removed at this "
                    + "clean stop (another process holding the database, such as a backup or a sqlite3 shell, a full disk, or a "
                    + "read-only or immutable folder?): \(kept)")
        }
        lock.release()
        location.removeIfTemporary()
        return journalStored
    }

    /// Closes the write connection, the last on the file. When the file was truncated under the
    /// server (``DatabaseFileLock/truncated()``), without the checkpoint on close: it would copy
    /// the WAL into what is left of the file and delete the `-wal`, the last copy of the changes
    /// since the last checkpoint (tester21b-F13: a 4 MB `-wal` deleted, a 0-byte file left).
    /// - Parameter whereabouts: the file's, read once by ``stop()`` for this and the companions.
    /// - Returns: whether the WAL was copied into a file moved away through the open descriptors
    ///   (``CatbirdStorage/SerialDatabase/closeCheckpointingThroughOpenFile()``).
    private func closeWriter(_ whereabouts: DatabaseFileLock.Whereabouts) -> Bool {
        _ = lock.truncated()  // looked at now too: the stop may be the first write since
        guard let truncation = lock.truncation else {
            switch whereabouts {
            case .movedAway, .replaced(deleted: false):
                // Still named elsewhere: its changes go into it there through the open descriptors.
                guard let failed = writer.closeCheckpointingThroughOpenFile() else { return true }
                log.warning(
                    "database \(settings.databasePath): the file was moved away while the server ran, and copying its WAL into "
                        + "it through the server's descriptors at this stop failed (\(failed))")
            default:
                writer.close()
            }
            return false
        }
        do {
            try writer.closeKeepingWAL()
        } catch {
            log.error("database \(settings.databasePath): could not keep the -wal at close (\(error)); left the connection open")
        }
        log.warning(
            "database \(settings.databasePath): kept \(location.path)-wal and \(location.path)-shm beside the file, which was "
                + "truncated under the server (\(truncation.size) bytes, after \(truncation.largest)): the -wal holds the changes "
                + "since the last checkpoint, not the pages cut off, so the file is lost; restore a copy of it, or move all three "
                + "away to start afresh")
        return false
    }

    deinit {
        stop()
    }
}
