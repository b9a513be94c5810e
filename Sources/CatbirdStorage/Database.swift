import CSQLite

/// One SQLite connection (<https://www.sqlite.org/c3ref/sqlite3.html>).
///
/// Not Sendable, deliberately: a connection must be used by one thread at a time (it is opened
/// with `SQLITE_OPEN_NOMUTEX`, SQLite's "multi-thread" mode), so its owner — typically an actor
/// or a type guarding it with a lock — serialises every call. Statements it hands out share
/// that rule.
///
/// Errors are `SQLiteError` values carrying SQLite's extended result code. Using a `Database`
/// (or one of its statements) after `close()` is a programmer error and traps.
public final class Database {
    /// How a connection opens its file.
    public enum Mode: Sendable {
        /// Read and write; creates the file if it is missing. WAL journal, see `init`.
        case readWrite
        /// Read only (`SQLITE_OPEN_READONLY` plus `PRAGMA query_only=1`); the file must exist.
        case readOnly
    }

    /// The size in bytes the WAL file is truncated to once a checkpoint lets it start over
    /// (`PRAGMA journal_size_limit`): 16 MiB, four times what SQLite's automatic checkpoint
    /// (every 1000 pages of 4 KiB) lets it reach in steady use, so only a burst leaves it
    /// larger, and only until the next restart of the WAL.
    public static let walSizeLimit = 16 << 20

    /// The path given to `init`, or `":memory:"`.
    public let path: String
    /// The mode given to `init`.
    public let mode: Mode
    package let connection: Connection
    /// Prepared statements by SQL text; see `statement(_:)`. At most ``statementCacheLimit``.
    var statementCache: [StatementText: Statement] = [:]
    /// The most statements ``statementCache`` keeps: 256 (the server's own texts are about a
    /// hundred). A text with values written into it makes a new statement per value, kept for
    /// good (tester finding tester32b-F2: a journal page's ids, some 95 KB per tenant); past the
    /// limit the cache is emptied, and the texts in use are prepared again as they come.
    public static let statementCacheLimit = 256
    /// ``checkpointAutomatically(report:)``'s closure, kept while SQLite may call it.
    var walHook: CheckpointReport?

    /// SQLite's process-wide settings, made once before the first connection opens: memory
    /// statistics off (nothing reads them, and they take a global mutex around every
    /// allocation SQLite makes), and the allocator that bounds user SQL per thread
    /// (``SQLiteMemoryBudget``). Refused, and harmless, if SQLite was already initialised.
    /// Also the C heap's: blocks of 1 MiB or more each in their own mapping, so the large
    /// values SQLite frees go back to the system at once (`catbird_map_large_allocations`).
    private static let processSettings: Void = {
        _ = catbird_sqlite3_disable_memory_statistics()
        SQLiteMemoryBudget.install()
        _ = catbird_map_large_allocations(1 << 20)
    }()

    /// `path` as SQLite must be given it to open the file of that name: a relative path that
    /// begins with `file:` gets `./` before it, as SQLite (built with URI filenames on, as
    /// Debian's is) would otherwise read it as a URI and open another file than the one the
    /// server locked and checks (tester finding T14B-F3: `--db file:foo.sqlite` wrote
    /// `foo.sqlite`, which a second server could open). <https://www.sqlite.org/uri.html>
    static func fileName(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// Opens (for `.readWrite`, creating if needed) the database at `path`; `":memory:"` opens a
    /// private in-memory database (<https://www.sqlite.org/c3ref/open.html>).
    ///
    /// Every connection is hardened for untrusted SQL (<https://www.sqlite.org/security.html>):
    /// `SQLITE_DBCONFIG_DEFENSIVE` on, `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER` and
    /// `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` off.
    /// `.readWrite` then sets, in order: busy timeout 5000 ms, `journal_mode=WAL` and
    /// `journal_size_limit` ``walSizeLimit`` (skipped for in-memory databases; on a file system
    /// without shared memory SQLite keeps its previous mode without an error), `synchronous=NORMAL`, `foreign_keys=ON`. `.readOnly` sets the busy
    /// timeout and `query_only=1`; it sees data committed by other connections to the same file,
    /// except for `":memory:"`, where every connection has its own empty database.
    ///
    /// - Throws: `SQLiteError` when the file cannot be opened (`SQLITE_CANTOPEN`, e.g. a
    ///   missing file in `.readOnly`, or a missing directory) or is not a database
    ///   (`SQLITE_NOTADB`), or when a pragma fails (e.g. `SQLITE_BUSY` after 5 s).
    public init(path: String, mode: Mode = .readWrite) throws(SQLiteError) {
        // NOMUTEX: the owner serialises access (see the type's documentation), so SQLite's
        // per-connection mutex would only add cost.
        let access = mode == .readWrite
            ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            : SQLITE_OPEN_READONLY
        _ = Self.processSettings
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(Self.fileName(path), &handle, access | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let error = SQLiteError.current(handle, code: status, sql: nil)
            sqlite3_close_v2(handle)
            throw SQLiteError(code: error.extendedCode, message: "\(error.message) (path: \(path))")
        }
        self.path = path
        self.mode = mode
        self.connection = Connection(handle: handle)
        // Errors then carry e.g. SQLITE_CONSTRAINT_UNIQUE rather than just SQLITE_CONSTRAINT.
        sqlite3_extended_result_codes(handle, 1)
        // Wait up to 5 s for another connection's lock (a writer, a checkpoint) instead of
        // failing at once with SQLITE_BUSY. https://www.sqlite.org/c3ref/busy_timeout.html
        sqlite3_busy_timeout(handle, Self.wholeMilliseconds(Self.busyTimeout))
        // Every connection may run user SQL (the SQL route's reader) or share the file with one:
        // defensive mode, no fts3_tokenizer() installing addresses, no extension loading.
        let hardened = catbird_sqlite3_harden(handle)
        guard hardened == SQLITE_OK else { throw SQLiteError.current(handle, code: hardened, sql: nil) }
        switch mode {
        case .readWrite:
            if path != ":memory:" && !path.isEmpty {
                // WAL: readers never block the writer nor the writer readers, so the read-only
                // connection (journal, SQL API) runs beside the writer. https://www.sqlite.org/wal.html
                try execute("PRAGMA journal_mode=WAL")
                // Without a limit the WAL file keeps the largest size it ever reached (61 MB after
                // a load test, for good); with one, SQLite truncates it to this size each time a
                // checkpoint lets the WAL start over. https://www.sqlite.org/pragma.html#pragma_journal_size_limit
                try execute("PRAGMA journal_size_limit=\(Self.walSizeLimit)")
            }
            // NORMAL is durable against application crashes and consistent in WAL mode; only an
            // OS crash or power loss may lose the last commits — fine for a mock server, and it
            // spares an fsync per commit. https://www.sqlite.org/pragma.html#pragma_synchronous
            try execute("PRAGMA synchronous=NORMAL")
            // SQLite leaves foreign keys unenforced by default; schemas rely on them (an
            // ON DELETE CASCADE must cascade). https://www.sqlite.org/foreignkeys.html
            try execute("PRAGMA foreign_keys=ON")
        case .readOnly:
            // Belt and braces over SQLITE_OPEN_READONLY: any write fails with SQLITE_READONLY,
            // including to TEMP tables. https://www.sqlite.org/pragma.html#pragma_query_only
            try execute("PRAGMA query_only=1")
        }
    }

    deinit {
        close()
    }

    /// `true` once `close()` ran.
    public var isClosed: Bool { connection.handle == nil }

    /// Drops the statement cache and closes the connection (`sqlite3_close_v2`,
    /// <https://www.sqlite.org/c3ref/close.html>); an open transaction is rolled back.
    /// Idempotent; also run by `deinit`. Statements still held elsewhere trap if used afterwards.
    public func close() {
        statementCache.removeAll()
        if walHook != nil, let handle = connection.handle {
            sqlite3_wal_hook(handle, nil, nil)  // the close's own checkpoint reports to no one
            walHook = nil
        }
        connection.close()
    }
}
