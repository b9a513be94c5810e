import CatbirdParallelId
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the app under test should send its requests during a UI test: the Catbird server the
/// test process started and the parallel id (tenant) of the test shard that launched the app.
///
/// The test process hands both over when it launches the app, as launch arguments
/// (`-catbird_url http://127.0.0.1:8080 -catbird_parallel_id shard-1`, Apple's `-key value`
/// convention) or as environment variables (`CATBIRD_URL`, `CATBIRD_PARALLEL_ID`). The app
/// reads them once with ``current`` and, when there is a configuration, aims its backend
/// requests at Catbird, for example by replacing its base URL and adding the header to its
/// session:
///
/// ```swift
/// let production = URL(string: "https://api.example.com")!
/// #if DEBUG
/// let catbird = CatbirdAppConfiguration.current
/// #else
/// let catbird: CatbirdAppConfiguration? = nil
/// #endif
/// let baseURL = catbird?.url(for: production) ?? production
/// let session = URLSession(configuration: catbird?.sessionConfiguration() ?? .default)
/// ```
///
/// or, where every request passes one place, with `request = catbird?.redirect(request) ?? request`
/// (URL and header in one go). An app whose SDKs send through `URLSession.shared` can, on Apple
/// platforms, opt in to ``RedirectingURLProtocol`` (off by default), which redirects every
/// `http`/`https` request of the shared session.
///
/// A recorded backend (the server's file mocks, record, redirect and proxy modes,
/// `docs/files.md#reaching-a-recorded-backend-from-the-app`) is reached the same way: with
/// ``url(for:)`` or ``redirect(_:)`` the app's requests go to Catbird, which answers from its
/// mocks directory or, in redirect and record mode, forwards them to the real backend it was
/// started with (`--redirect-url`). For proxy mode (`--proxy`), leave the URLs alone and make
/// Catbird the session's HTTP proxy instead (plain `http://` only). Either way the session
/// should send the parallel id (``sessionConfiguration()``), so a shard's mocks win over files.
///
/// Without a Catbird URL there is no configuration (``current`` is nil) and the app talks to
/// its real backend.
public struct CatbirdAppConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The names under which the test process hands the configuration to the app.
    public enum LaunchKeys {
        /// The launch argument followed by the server URL: `-catbird_url http://127.0.0.1:8080`.
        public static let urlArgument = "-catbird_url"
        /// The launch argument followed by the parallel id: `-catbird_parallel_id shard-1`.
        public static let parallelIdArgument = "-catbird_parallel_id"
        /// The environment variable holding the server URL.
        public static let urlEnvironment = "CATBIRD_URL"
        /// The environment variable holding the parallel id.
        public static let parallelIdEnvironment = "CATBIRD_PARALLEL_ID"
        /// Catbird 0.11's README launch argument for the server URL (`-url_key <url>`), read
        /// when ``urlArgument`` is absent, so an app and tests set up as 0.11 showed keep working.
        public static let legacyURLArgument = "-url_key"
        /// Catbird 0.11's README launch argument for the parallel id (`-parallelId <id>`), read
        /// when ``parallelIdArgument`` is absent.
        public static let legacyParallelIdArgument = "-parallelId"
    }

    /// The header that tells Catbird which tenant (test shard) a request belongs to.
    public static let parallelIdHeader = "X-Catbird-Parallel-Id"

    /// The Catbird server: an absolute `http` or `https` URL with a host, such as
    /// `http://127.0.0.1:8080`. A path (for a server behind a reverse proxy) is kept and put in
    /// front of every redirected request's path; a query or fragment is dropped.
    public let serverURL: URL

    /// The parallel id sent as `X-Catbird-Parallel-Id` on every request, or nil for Catbird's
    /// default tenant (no header).
    ///
    /// Read by the rule the test side (`CatbirdAPI`'s `Catbird.parallelId`) applies too, so both
    /// address one tenant: spaces, tabs and line breaks at either end are dropped (`" shard-1\n"`
    /// is `shard-1`); an id that is only spaces, tabs or line breaks, or that still holds a control character
    /// (U+0000–U+001F, U+007F–U+009F) or a line or paragraph separator, stops the process with
    /// a message naming it, rather than sending requests without the header to the default
    /// tenant (tester finding T18C-F7).
    public let parallelId: String?

    /// A configuration for a known server. Returns nil when `serverURL` is not an absolute
    /// `http`/`https` URL with a host. An empty `parallelId` means the default tenant (nil);
    /// a parallel id no header can carry stops the process (see ``parallelId``).
    public init?(serverURL: URL, parallelId: String? = nil) {
        guard let normalized = Self.normalizedServerURL(serverURL) else { return nil }
        self.serverURL = normalized
        self.parallelId = Self.normalizedParallelId(parallelId)
    }

    /// Reads the configuration the test process handed over, or returns nil when it handed
    /// over no usable Catbird URL (the app then uses its real backend).
    ///
    /// - The server URL comes from the launch argument `-catbird_url <url>`, else from Catbird
    ///   0.11's `-url_key <url>`, else from the environment variable `CATBIRD_URL`. When the
    ///   same argument appears more than once,
    ///   the last one counts. A value that is not an absolute `http`/`https` URL with a host
    ///   is ignored, as if it were absent: an invalid argument falls back to the environment,
    ///   and with no valid value at all the result is nil.
    /// - The parallel id comes from `-catbird_parallel_id <id>`, else from 0.11's
    ///   `-parallelId <id>`, else from `CATBIRD_PARALLEL_ID`; an empty or absent value means
    ///   the default tenant (nil). The id is read as ``parallelId`` says (trimmed; one holding
    ///   a control character stops the process).
    ///   It is read only when there is a server URL.
    ///
    /// A key that is the last argument (no value after it) is ignored. UserDefaults is not
    /// read: on Apple platforms the launch arguments are there too, but so could be values a
    /// previous run persisted.
    ///
    /// - Parameters:
    ///   - arguments: the process's arguments, the executable first (any element named like
    ///     a key is recognised, so the executable path may also be left out).
    ///   - environment: the process's environment.
    public init?(
        arguments: [String] = ProcessInfo.processInfo.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        let candidates = [
            Self.lastValue(of: LaunchKeys.urlArgument, in: arguments),
            Self.lastValue(of: LaunchKeys.legacyURLArgument, in: arguments),
            environment[LaunchKeys.urlEnvironment],
        ]
        guard let url = candidates.lazy.compactMap({ $0.flatMap(Self.parseServerURL) }).first else { return nil }
        let parallelId = Self.normalizedParallelId(Self.lastValue(of: LaunchKeys.parallelIdArgument, in: arguments))
            ?? Self.normalizedParallelId(Self.lastValue(of: LaunchKeys.legacyParallelIdArgument, in: arguments))
            ?? Self.normalizedParallelId(environment[LaunchKeys.parallelIdEnvironment])
        self.init(serverURL: url, parallelId: parallelId)
    }

    /// The configuration of this process, read once from its launch arguments and environment
    /// on first use (see ``init(arguments:environment:)``); nil when no Catbird URL was handed
    /// over.
    public static let current: CatbirdAppConfiguration? = CatbirdAppConfiguration()

    /// The headers Catbird needs on every request: `X-Catbird-Parallel-Id` when there is a
    /// parallel id, else none.
    public var headers: [String: String] {
        parallelId.map { [Self.parallelIdHeader: $0] } ?? [:]
    }

    /// A short summary for logs, such as `Catbird at http://127.0.0.1:8080 (parallel id s1)`.
    public var description: String {
        "Catbird at \(serverURL.absoluteString) (\(parallelId.map { "parallel id \($0)" } ?? "default tenant"))"
    }

    // MARK: - Parsing

    /// The element after the last occurrence of `key`, if there is one.
    private static func lastValue(of key: String, in arguments: [String]) -> String? {
        guard let index = arguments.lastIndex(of: key), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// `text`, trimmed, as a server URL; nil when it is not one.
    private static func parseServerURL(_ text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let url = URL(string: trimmed) else { return nil }
        return normalizedServerURL(url)
    }

    /// `url` without query, fragment and a trailing `/`; nil unless it is an absolute
    /// `http`/`https` URL with a host.
    private static func normalizedServerURL(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        components.query = nil
        components.fragment = nil
        while components.percentEncodedPath.hasSuffix("/") {
            components.percentEncodedPath.removeLast()
        }
        return components.url
    }

    /// `id` by the rule `CatbirdAPI`'s `Catbird.parallelId` applies too: trimmed of spaces, tabs
    /// and line breaks at either end, nil when empty; stops the process for an id that is only spaces, tabs
    /// or line breaks or holds a control character (no header could carry it).
    private static func normalizedParallelId(_ id: String?) -> String? {
        ParallelIdRule.validated(id, for: "CatbirdAppConfiguration")
    }
}
