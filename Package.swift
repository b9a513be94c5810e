// swift-tools-version:6.0
// Catbird: an HTTP mock server for UI and integration tests.
//
// Layers, lowest first (each target may use only those above it in this list):
//   CMicroHTTPD, CSQLite,  system libraries (Debian libmicrohttpd-dev, libsqlite3-dev,
//   CCurl                  libcurl4-openssl-dev)
//   CZlib                  system library (Debian zlib1g-dev): inflate, for request bodies sent with
//                          Content-Encoding gzip or deflate
//   CByteSearch            memmem(3) (glibc declares it only under _GNU_SOURCE): linear substring search
//   CThreads               thread names for the kernel (pthread_setname_np(3): glibc declares it only
//                          under _GNU_SOURCE)
//   CatbirdSupport         Foundation-only helpers for both sides: Logger, Timestamp, JSONText,
//                          ASCII case folding, milliseconds, named threads; the strict JSON text
//                          check of control bodies and file sidecars (JSONTextCheck, package access)
//   CatbirdWire            the wire format, once: Catbird 0.11's types and our extensions
//                          (Foundation only; the client and the server both use it)
//   CatbirdHTTP            HTTP adapter over libmicrohttpd: request/response values, a handler;
//                          its own answers (shutdown, unreadable file) in the wire's error shape;
//                          request bodies' content codings undone (CZlib)
//   CatbirdOutbound        outbound HTTP over libcurl (redirect, proxy and record modes)
//   CatbirdStorage         SQLite library: connections, statements, transactions, a migrator run
//                          on the migrations it is given; knows nothing of tenants or our tables
//   CatbirdSQLSandbox      user SQL, read-only and limited (time, rows, bytes), confined to one
//                          tenant's rows through temporary views (the scope is given by the caller)
//   CatbirdMatching        request patterns, response mocks, matchers (Catbird 0.11 semantics), body
//                          matchers (JSON paths through SQLite's JSON functions), near-miss distance
//   CatbirdDomain          tenants' mock tables (memory + SQLite write-through), the request journal,
//                          the schema (../migrations, embedded at build time) and its SQL
//   CatbirdWebPage         the web log page's HTML, CSS, JS and icon, embedded at build time
//   CatbirdServer          routes: control API, journal and admin endpoints, mock serving; the
//                          control API's OpenAPI document (OpenAPI/openapi.json, embedded at build time)
//   catbird                the command-line interface
//
// Client side, depending on none of the server's modules (Foundation, CatbirdSupport, CatbirdWire):
//   CatbirdParallelId      the one parallel-id rule both client libraries apply (trim, refuse control
//                          characters), with no dependency at all
//   CatbirdAPI             the test-side client (Catbird 0.11 source-compatible, plus journal/SQL,
//                          find, near misses, assertRequested);
//                          re-exports CatbirdWire, so `import CatbirdAPI` gives the wire types
//   CatbirdAppSupport      the app-side helper: server URL and parallel id for the app under test
//
// Examples/FeedApp: a stand-in app under test and the UI-test suite that drives it.
// Benchmarks/BareMHD (catbird-bare-mhd): benchmark-only, a bare libmicrohttpd handler started as
// HTTPServer starts its daemon (CMicroHTTPD, CatbirdHTTP): Benchmarks/run.sh's ceiling.
import PackageDescription

let package = Package(
    name: "Catbird",
    // The client libraries support iOS/macOS 12; the server is built and run on Linux.
    platforms: [.macOS(.v12), .iOS(.v12)],
    products: [
        .executable(name: "catbird", targets: ["catbird"]),
        .library(name: "CatbirdAPI", targets: ["CatbirdAPI"]),
        .library(name: "CatbirdAppSupport", targets: ["CatbirdAppSupport"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "CByteSearch"),
        .target(name: "CThreads"),
        .target(name: "CatbirdSupport", dependencies: ["CByteSearch", "CThreads"]),
        .target(name: "CatbirdWire", dependencies: ["CatbirdSupport"]),
        .target(name: "CatbirdHTTP", dependencies: ["CMicroHTTPD", "CZlib", "CatbirdSupport", "CatbirdWire"]),
        .target(name: "CatbirdOutbound", dependencies: ["CCurl", "CatbirdSupport"]),
        .executableTarget(name: "EmbedMigrationsTool"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["EmbedMigrationsTool"]
        ),
        .target(
            name: "CatbirdStorage",
            dependencies: ["CSQLite", "CatbirdSupport"]
        ),
        .target(name: "CatbirdSQLSandbox", dependencies: ["CSQLite", "CatbirdSupport", "CatbirdStorage"]),
        .target(name: "CatbirdMatching", dependencies: ["CatbirdSupport", "CatbirdWire", "CatbirdStorage"]),
        .target(
            name: "CatbirdDomain",
            dependencies: ["CatbirdSupport", "CatbirdWire", "CatbirdMatching", "CatbirdStorage", "CatbirdSQLSandbox"],
            plugins: ["EmbedMigrations"]),
        .target(
            name: "CatbirdWebPage",
            resources: ["index.html", "page.css", "page.js", "icon.svg"].map { .embedInCode("Assets/\($0)") }
        ),
        .target(
            name: "CatbirdServer",
            dependencies: [
                "CatbirdSupport", "CatbirdWire", "CatbirdHTTP", "CatbirdOutbound", "CatbirdStorage", "CatbirdSQLSandbox",
                "CatbirdMatching", "CatbirdDomain", "CatbirdWebPage",
            ],
            resources: [.embedInCode("OpenAPI/openapi.json")]),
        .executableTarget(
            name: "catbird", dependencies: ["CatbirdSupport", "CatbirdMatching", "CatbirdServer"], resources: [.embedInCode("Usage.txt")]),
        .target(name: "CatbirdParallelId"),
        .target(name: "CatbirdAPI", dependencies: ["CatbirdSupport", "CatbirdWire", "CatbirdParallelId"]),
        .target(name: "CatbirdAppSupport", dependencies: ["CatbirdParallelId"]),
        .executableTarget(name: "FeedApp", dependencies: ["CatbirdAppSupport"], path: "Examples/FeedApp/App"),
        .executableTarget(name: "catbird-bare-mhd", dependencies: ["CMicroHTTPD", "CatbirdHTTP"], path: "Benchmarks/BareMHD"),

        .target(
            name: "CatbirdTestSupport", dependencies: ["CatbirdAPI", "CatbirdStorage", "CatbirdDomain", "CatbirdServer"],
            path: "Tests/CatbirdTestSupport"),
        .testTarget(name: "CatbirdWireTests", dependencies: ["CatbirdWire", "CatbirdTestSupport"]),
        .testTarget(name: "CatbirdMatchingTests", dependencies: ["CatbirdWire", "CatbirdMatching", "CatbirdTestSupport"]),
        .testTarget(name: "CatbirdStorageTests", dependencies: ["CatbirdStorage", "CatbirdDomain", "CatbirdTestSupport"]),
        .testTarget(name: "CatbirdDomainTests", dependencies: ["CatbirdDomain", "CatbirdTestSupport"]),
        .testTarget(name: "CatbirdHTTPTests", dependencies: ["CatbirdHTTP", "CatbirdTestSupport"]),
        .testTarget(
            name: "CatbirdSQLSandboxTests",
            dependencies: ["CatbirdStorage", "CatbirdSQLSandbox", "CatbirdDomain", "CatbirdTestSupport"]),
        .testTarget(
            name: "CatbirdServerTests",
            dependencies: [
                "CatbirdSupport", "CatbirdWire", "CatbirdHTTP", "CatbirdStorage", "CatbirdMatching", "CatbirdDomain",
                "CatbirdServer", "CatbirdTestSupport",
            ]),
        .testTarget(name: "CatbirdAPITests", dependencies: ["CatbirdAPI", "CatbirdAppSupport", "CatbirdTestSupport"]),
        .testTarget(name: "CatbirdAppSupportTests", dependencies: ["CatbirdAppSupport", "CatbirdParallelId"]),
        .testTarget(
            name: "FeedAppUITests", dependencies: ["CatbirdAPI", "CatbirdTestSupport"], path: "Examples/FeedApp/UITests"),
    ],
    swiftLanguageModes: [.v6]
)
