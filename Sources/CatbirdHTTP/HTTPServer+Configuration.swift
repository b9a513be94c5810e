import CatbirdSupport

extension HTTPServer {
    /// How the server listens and what it accepts.
    public struct Configuration: Sendable {
        /// Address to bind: an IPv4 or IPv6 literal or a host name, e.g. `127.0.0.1`.
        public var host: String
        /// TCP port; 0 picks a free one (read it back from ``HTTPServer/port``).
        public var port: UInt16
        /// Worker threads, each running its own epoll loop. Defaults to the number of cores.
        public var threadCount: Int
        /// Largest request body accepted, in bytes; larger ones get
        /// ``HTTPHandler/respondToOversizedBody(_:limit:)``.
        public var maxBodySize: Int
        /// Idle keep-alive connections are closed after this many seconds.
        public var idleTimeoutSeconds: Int
        /// Open connections accepted at most; further clients wait in the listen backlog.
        /// Defaults to the process's open-file limit less a reserve for the database and logs.
        public var connectionLimit: Int
        /// Bytes of memory each connection may use for the request line and headers it reads
        /// and the response headers it writes (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`); a request
        /// whose line and headers do not fit is answered 431 by libmicrohttpd. Bodies do not
        /// count: they are streamed to the handler. Default ``defaultConnectionMemoryLimit``.
        public var connectionMemoryLimit: Int
        /// The bytes of request bodies held in memory at once, all connections together (a
        /// declared `Content-Length` counts whole from the head on): a body that does not fit
        /// is refused with 503 (``HTTPRequestProblem/bodiesOverBudget(limit:largeRoom:holderShare:whileArriving:)``). Its limit is
        /// `maxBufferedBodies` (default ``defaultMaxBufferedBodies(maxBodySize:)``, at least
        /// `maxBodySize`). One object: whoever else holds it (an upstream client's answers, a
        /// second server made from this configuration) counts against the same limit. Its
        /// ``CatbirdSupport/ByteBudget/holderShare`` is ``holderShare(limit:maxBodySize:)``.
        public var bodyBudget: ByteBudget
        /// The request header whose value names who holds a request body's bytes of
        /// ``bodyBudget`` (a ``CatbirdSupport/ByteBudget/Holder``: the value as sent, "" when
        /// absent), so that one holder's bodies past its share never keep another's out; nil:
        /// bodies are held by no one named.
        public var budgetHolderHeader: String?
        /// Longest a request's head (request line and header fields) may take from its request
        /// line, a request line trickling in without completing, and a request body may go
        /// without receiving a byte; also how long an answer holding part of ``bodyBudget`` may
        /// wait with none of its bytes taken by its client (``ConnectionWatch``); nil: no
        /// deadline, only the idle timeout (which every byte restarts). Default
        /// ``defaultHeadTimeout``.
        public var headTimeout: Duration?
        /// Where the server counts its open connections, how often every slot was taken and
        /// the connections it closed itself (``HTTPConnectionCounts``); a new object by default.
        /// One object: a second server made from this configuration counts into it too.
        public var connectionCounts = HTTPConnectionCounts()

        /// 30 s: a head is one packet or a few; a client on the slowest link sends it in well
        /// under a second, a slow-loris one byte a minute.
        public static let defaultHeadTimeout: Duration = .seconds(30)

        /// Eight bodies of `maxBodySize` and 8 MiB of small ones beside the budget's last eighth,
        /// which large ones leave to small ones (``CatbirdSupport/ByteBudget/reserve(forHolding:largest:)``):
        /// 8/7 × (8 × `maxBodySize` + 8 MiB), rounded up (488,936,010 bytes, about 466 MiB, at
        /// the default 50 MiB). The largest uploads the server promises to take, eight at once
        /// while small requests come and go (tester finding try10a F8: at 8 × the eighth got 503;
        /// review: at 64/7 × one small body in flight did it again).
        public static func defaultMaxBufferedBodies(maxBodySize: Int) -> Int {
            let (large, overflow) = maxBodySize.multipliedReportingOverflow(by: 8)
            let (held, overflow2) = large.addingReportingOverflow(8 << 20)
            let (product, overflow3) = held.multipliedReportingOverflow(by: 8)
            return overflow || overflow2 || overflow3 ? Int.max : (product + 6) / 7
        }

        /// A budget holder's share (``CatbirdSupport/ByteBudget/holderShare``): one body of
        /// `maxBodySize` (at most `limit`), so that another holder's largest body fits beside a
        /// holder that holds more (docs/tenancy.md#fair-shares). At the defaults a holder alone
        /// takes seven of the largest bodies at once (the budget less its last eighth and one
        /// body), eight holders one each.
        public static func holderShare(limit: Int, maxBodySize: Int) -> Int {
            min(limit, maxBodySize)
        }

        /// 32 KiB: room for about 28 KiB of request line and headers, a Cookie field counting
        /// twice (libmicrohttpd keeps a parsed copy); Node.js accepts 16 KiB by default and
        /// browsers send far less. libmicrohttpd clears the whole area after
        /// every request on a keep-alive connection, so it is kept to what requests need (at
        /// 128 KiB the clearing alone took 13% of a mock hit's time).
        public static let defaultConnectionMemoryLimit = 32 * 1024

        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080,
            threadCount: Int = HTTPServer.coreCount, maxBodySize: Int = 50 * 1024 * 1024,
            idleTimeoutSeconds: Int = 120, connectionLimit: Int = HTTPServer.defaultConnectionLimit,
            connectionMemoryLimit: Int = defaultConnectionMemoryLimit, maxBufferedBodies: Int? = nil,
            headTimeout: Duration? = defaultHeadTimeout, budgetHolderHeader: String? = nil
        ) {
            self.host = host
            self.port = port
            self.threadCount = max(1, threadCount)
            self.maxBodySize = maxBodySize
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionLimit = max(1, connectionLimit)
            self.connectionMemoryLimit = max(4096, connectionMemoryLimit)
            let limit = max(maxBodySize, maxBufferedBodies ?? Self.defaultMaxBufferedBodies(maxBodySize: maxBodySize))
            bodyBudget = ByteBudget(limit: limit, holderShare: Self.holderShare(limit: limit, maxBodySize: maxBodySize))
            self.headTimeout = headTimeout
            self.budgetHolderHeader = budgetHolderHeader
        }
    }

    /// The open-file limit less 64 descriptors for the process's own files
    /// (``defaultConnectionLimit(descriptorsPerConnection:reserve:)``).
    public static var defaultConnectionLimit: Int { defaultConnectionLimit(descriptorsPerConnection: 1, reserve: 64) }

    /// The connections the open-file limit leaves room for: the soft limit less `reserve` (the
    /// descriptors the process holds or may open besides its connections), divided by
    /// `descriptorsPerConnection` (a client's socket and an upstream's, or an open file: 2;
    /// tester finding tester40a-F3), at least 1 and at most 65536. Unbounded by the limit
    /// (no limit, or it cannot be read): 65536, or 1000 / `descriptorsPerConnection`.
    ///
    /// Nothing more than fits is promised: a floor of 64 admitted 64 clients where the limit
    /// left room for 47 beside the server's 61 own files, and when the accepts used up the
    /// rest the journal writer could not open SQLite's files and dropped 97 % of the rows
    /// (tester finding tester46b-F9). The `catbird` command refuses to start below 64.
    public static func defaultConnectionLimit(descriptorsPerConnection: Int, reserve: Int) -> Int {
        let each = Int64(max(1, descriptorsPerConnection))
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int(1000 / each) }
        let soft = limit.rlim_cur == rlim_t.max ? Int64.max : Int64(clamping: limit.rlim_cur)
        return Int(min(max(soft - Int64(reserve), each) / each, 65536))
    }

    /// The number of online processor cores.
    public static var coreCount: Int {
        #if os(Linux)
        return Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #else
        return ProcessInfo.processInfo.activeProcessorCount
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
