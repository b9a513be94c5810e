import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

extension CatbirdServer {
    /// Everything the server can be configured with (CLI flags and `CATBIRD_*` variables).
    public struct Settings: Sendable {
        /// Address to bind, e.g. `127.0.0.1`.
        public var host: String
        /// TCP port; 0 picks a free one.
        public var port: UInt16
        /// SQLite database file; `:memory:` keeps everything in memory (lost at exit).
        public var databasePath: String
        /// Largest request body accepted, in bytes (`CATBIRD_MAX_BODY_SIZE`); 413 past it.
        public var maxBodySize: Int
        /// Bytes of request bodies and forwarded answers held in memory at once, all connections
        /// together (`--max-buffered-bodies`, `CATBIRD_MAX_BUFFERED_BODIES`); 503 past it. Nil:
        /// eight times ``maxBodySize`` (docs/operations.md#connections-and-memory).
        public var maxBufferedBodies: Int? = nil
        /// Longest a request's head may take from its request line, and a request body may go
        /// without a byte (`--head-timeout`, `CATBIRD_HEAD_TIMEOUT`); 408 past it. Also how long an
        /// answer held in ``maxBufferedBodies`` may go with none of it read before its connection is
        /// reset (docs/operations.md#connections-and-memory). Nil: no deadline.
        public var headTimeout: Duration? = HTTPServer.Configuration.defaultHeadTimeout
        /// Bytes of each request and response body kept in the journal; longer bodies are
        /// truncated and marked (`request_body_truncated`, `response_body_truncated`). At most
        /// ``maxJournalBodyLimit``.
        public var journalBodyLimit: Int

        /// The largest `journalBodyLimit`: 476 MiB (499,122,176 bytes). A journal row holds a
        /// request body and a response body, and SQLite stores at most 1,000,000,000 bytes in a
        /// row (`SQLITE_MAX_LENGTH`, the Debian library's); past it the row fails with
        /// `SQLITE_TOOBIG` and the entry is lost (tester finding tester28b-F4: a 1.05 GB upload
        /// with `--journal-body-limit 2gb` was answered, and its row dropped after three attempts).
        public static let maxJournalBodyLimit = 476 << 20
        /// What one tenant's mocks may hold: how many, and how many bytes of response bodies
        /// (`--max-tenant-mocks`, `--max-tenant-mock-bytes`; docs/protocol.md#mock-limits).
        public var mockLimits = TenantMockLimits()
        /// Journal entries that may wait for the writer before requests are held back (default
        /// 16,384: a third of a second of the writer's work; a longer queue only holds more
        /// memory, as the journal benchmark's peak RSS showed at 50,000).
        public var journalQueueCapacity: Int
        /// Longest a `/catbird/api/sql` query may run, from when it starts running.
        public var sqlTimeLimit: Duration
        /// Longest a `/catbird/api/sql` query may wait for one of the SQL connections (all busy
        /// with other queries) before it is refused with 503 and never runs (default 5 seconds:
        /// a tenant behind up to five others' queries on the 3 connections, each at most
        /// ``sqlTimeLimit``'s 2 seconds, still runs; tester finding T11-F2). No option sets it.
        public var sqlWaitLimit: Duration = .seconds(5)
        /// Worker threads; defaults to the number of cores.
        public var threadCount: Int
        /// The worker threads the server runs: ``threadCount``, or the number of cores when it is 0.
        public var workerThreads: Int { threadCount > 0 ? threadCount : HTTPServer.coreCount }
        /// Log level; `info` logs one line per request.
        public var logLevel: Logger.Level
        /// The mocks directory (`--mocks-dir`, `CATBIRD_MOCKS_DIR`): file mocks are served from it
        /// after the dynamic mocks, and record mode writes into it (`docs/files.md`). Nil: none.
        public var mocksDirectory: String? = nil
        /// Whether a request's query string is part of its file name (`--files-with-query`,
        /// `CATBIRD_FILES_WITH_QUERY`), when serving and recording.
        public var filesIncludeQuery = false
        /// The upstream base URL for redirect mode (`--redirect-url`, `CATBIRD_REDIRECT_URL`):
        /// requests nothing else answers are forwarded there. Nil: off.
        public var redirectURL: String? = nil
        /// Proxy mode (`--proxy`, `CATBIRD_PROXY_ENABLED`): absolute-form requests nothing else
        /// answers are forwarded to the host they name.
        public var proxyEnabled = false
        /// Record mode (`--record`, `CATBIRD_RECORD_MODE`): forwarded exchanges are written to the
        /// mocks directory, and files are not served meanwhile.
        public var recordMode = false
        /// Answer CORS preflights and add CORS headers (`--cors`, `CATBIRD_CORS`): for any origin on
        /// the mocks, files and upstream; on the control routes only for ``corsOrigins``
        /// (docs/files.md#cors).
        public var cors = false
        /// The browser origins allowed on every route, the control routes included
        /// (`--cors-origin`, `CATBIRD_CORS_ORIGINS`): each `http://host[:port]` or
        /// `https://host[:port]`, compared without regard to case; `*` allows any origin on every
        /// route. When some are listed, other origins get no CORS fields anywhere; a list turns
        /// CORS on without ``cors`` (docs/files.md#cors).
        public var corsOrigins: [String] = []
        /// Host names the control routes answer under besides IP addresses and `localhost`
        /// (`--allowed-host`, `CATBIRD_ALLOWED_HOSTS`, comma-separated; `*`: any), while the
        /// server listens on a loopback address; listening beyond loopback, names are checked
        /// only when some are listed (docs/files.md#host-names, ``ControlHosts``).
        public var allowedHosts: [String] = []
        /// Longest a forwarded request may take upstream, connect to last byte; 504 past it.
        /// Nil: not given, ``defaultUpstreamTimeout`` (a given one without forwarding is warned
        /// about, ``ineffectiveOptionWarnings``).
        public var upstreamTimeout: Duration? = nil
        /// The upstream time limit when none is given: 30 s.
        public static let defaultUpstreamTimeout: Duration = .seconds(30)
        /// A PEM file of CA certificates that an `https://` upstream's certificate may chain to
        /// (`--upstream-ca-file`, `CATBIRD_UPSTREAM_CA_FILE`), instead of the system's; nil: the
        /// system's CA store. Verification is never turned off (docs/files.md#redirect-and-proxy).
        public var upstreamCAFile: String? = nil
        /// The bearer token the cross-tenant routes require (`CATBIRD_ADMIN_TOKEN`); nil: none,
        /// and a request without a parallel id is the admin (docs/tenancy.md#admin).
        public var adminToken: String?
        /// What is pruned and when (`--tenant-ttl`, `--journal-max-rows`, `--journal-max-age`, `--journal-max-bytes`;
        /// docs/operations.md#retention).
        public var retention: RetentionPolicy
        /// How often the pruner runs a pass.
        public var retentionInterval: Duration
        /// Whether an answer waits for its journal entry's commit (`--durability`).
        public var durability: Durability = .relaxed
        /// A cap on the database file, in pages (`PRAGMA max_page_count`; 4096 bytes each by
        /// default): past it writes fail with `SQLITE_FULL`, as on a full disk. Nil: no cap. For
        /// tests of a full disk where none can be mounted; no command-line option sets it.
        public var maxDatabasePages: Int? = nil
        /// Open connections accepted at most (``CatbirdHTTP/HTTPServer/Configuration/connectionLimit``);
        /// nil: the open-file limit less a reserve (``CatbirdHTTP/HTTPServer/defaultConnectionLimit``),
        /// as the `catbird` command always runs. For tests of a full connection table without a
        /// small open-file limit; no command-line option sets it.
        public var connectionLimit: Int? = nil

        /// The connection limit when ``connectionLimit`` is nil: the open-file limit less the
        /// server's own descriptors (``CatbirdServer/ownDescriptors(threads:)``), halved when a
        /// connection may hold a second descriptor (``descriptorsPerConnection``)
        /// (``CatbirdHTTP/HTTPServer/defaultConnectionLimit(descriptorsPerConnection:reserve:)``).
        public var defaultConnectionLimit: Int {
            HTTPServer.defaultConnectionLimit(
                descriptorsPerConnection: descriptorsPerConnection, reserve: CatbirdServer.ownDescriptors(threads: workerThreads))
        }

        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080, databasePath: String = "catbird.sqlite",
            maxBodySize: Int = 50 * 1024 * 1024, journalBodyLimit: Int = 64 * 1024,
            journalQueueCapacity: Int = 16_384, sqlTimeLimit: Duration = .seconds(2),
            threadCount: Int = 0, logLevel: Logger.Level = .info, adminToken: String? = nil,
            retention: RetentionPolicy = .defaults, retentionInterval: Duration = .seconds(2)
        ) {
            self.host = host
            self.port = port
            self.databasePath = databasePath
            self.maxBodySize = maxBodySize
            self.journalBodyLimit = journalBodyLimit
            self.journalQueueCapacity = journalQueueCapacity
            self.sqlTimeLimit = sqlTimeLimit
            self.threadCount = threadCount
            self.logLevel = logLevel
            self.adminToken = adminToken
            self.retention = retention
            self.retentionInterval = retentionInterval
        }

        /// Whether ``host`` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`): only the
        /// machine itself can connect.
        public var listensOnLoopbackOnly: Bool {
            let lowered = host.lowercased()
            return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
        }
    }
}
