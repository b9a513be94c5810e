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
        /// Bytes of each request and response body kept in the journal; longer bodies are
        /// truncated and marked (`request_body_truncated`, `response_body_truncated`).
        public var journalBodyLimit: Int
        /// Journal entries that may wait for the writer before requests are held back.
        public var journalQueueCapacity: Int
        /// Longest a `/catbird/api/sql` query may run.
        public var sqlTimeLimit: Duration
        /// Worker threads; defaults to the number of cores.
        public var threadCount: Int
        /// Log level; `info` logs one line per request.
        public var logLevel: Logger.Level

        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080, databasePath: String = "catbird.sqlite",
            maxBodySize: Int = 50 * 1024 * 1024, journalBodyLimit: Int = 64 * 1024,
            journalQueueCapacity: Int = 50_000, sqlTimeLimit: Duration = .seconds(2),
            threadCount: Int = 0, logLevel: Logger.Level = .info
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
        }
    }
}
