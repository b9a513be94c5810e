import CatbirdDomain
import CatbirdHTTP
import Foundation

/// An option naming a path or resource that cannot be used (README.md#configuration: checked
/// before anything is touched): the option's name (`mocks-dir`) and what is wrong; `description`
/// is `--mocks-dir: <problem>`.
public struct UnusableOption: Error, CustomStringConvertible, Sendable {
    /// The option's name without its dashes (`host`, `mocks-dir`, `upstream-ca-file`).
    public let option: String
    /// What is wrong with its value.
    public let problem: String

    public var description: String { "--\(option): \(problem)" }
}

extension CatbirdServer.Settings {
    /// The text a PEM certificate block starts with (RFC 7468 section 2).
    static let pemCertificateLabel = "-----BEGIN CERTIFICATE-----"

    /// Checks every option that names a path or resource, in the order the README gives, before
    /// the database, the port or any file is touched: the listening host resolves, the mocks
    /// directory is a directory (in record mode: is one, or does not exist yet and is created
    /// later), the upstream CA file is a readable file holding at least one PEM certificate.
    /// - Throws: ``UnusableOption`` naming the option.
    public func checkOptions() throws(UnusableOption) {
        do {
            try HTTPServer.checkResolvable(host: host)
        } catch {
            throw UnusableOption(option: "host", problem: "\(error)")
        }
        if let path = mocksDirectory {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if exists && !isDirectory.boolValue {
                throw UnusableOption(option: "mocks-dir", problem: "'\(path)' is a file, not a directory")
            }
            if !exists && !recordMode {
                throw UnusableOption(option: "mocks-dir", problem: "the directory '\(path)' does not exist (record mode creates it; serving needs it)")
            }
            if !exists, let reason = Self.whyNotCreatable(path) {
                throw UnusableOption(option: "mocks-dir", problem: "the directory '\(path)' does not exist and record mode cannot create it: \(reason)")
            }
            if let problem = Self.databaseInside(mocksDirectory: path, databasePath: databasePath) {
                throw UnusableOption(option: "db", problem: problem)
            }
        }
        if let path = upstreamCAFile {
            try Self.checkCertificateFile(path)
        }
        if let problem = Self.databaseNameProblem(databasePath) {
            throw UnusableOption(option: "db", problem: problem)
        }
    }

    /// Why SQLite could not make the files it keeps beside the database at `path`: its name
    /// with `-journal` (8 bytes more, the longest) past the 255 bytes a file name may have, or
    /// its absolute path with it past the 512 bytes SQLite takes (`SQLITE_MAX_PATHLEN`); nil
    /// when both fit, and for `:memory:`. Tester finding tester42b-F12: a name of 248 to 255
    /// bytes, or a path over about 505, failed with SQLite's bare "unable to open database file".
    static func databaseNameProblem(_ path: String) -> String? {
        guard path != ":memory:", !path.isEmpty else { return nil }
        let name = (path as NSString).lastPathComponent
        let longest = "-journal".utf8.count
        if name.utf8.count + longest > 255 {
            return "the database's file name is \(name.utf8.count) bytes: SQLite keeps \(name.prefix(20))…-journal, -wal and -shm "
                + "beside it (up to \(longest) bytes more), and a file name may have at most 255 bytes; use a name of at most "
                + "\(255 - longest) bytes"
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if absolute.utf8.count + longest > 512 {
            return "the database's absolute path is \(absolute.utf8.count) bytes: SQLite opens at most 512 bytes of path, with its "
                + "-journal (\(longest) bytes more) beside it; use a path of at most \(512 - longest) bytes"
        }
        return nil
    }

    /// Why the database cannot sit where it would: inside the mocks directory, where every
    /// tenant could download it and its `-wal` (every tenant's mocks and journal) as file mocks,
    /// and record mode would write an upstream's answer over it (tester finding tester42b-F14:
    /// `--mocks-dir .` beside the default `catbird.sqlite` did both; the server then could not
    /// start again). `:memory:`'s file is made in the temporary folder, which counts too. Nil
    /// when the database is outside. Paths are compared with their symbolic links resolved
    /// where they exist.
    static func databaseInside(mocksDirectory: String, databasePath: String) -> String? {
        let (folder, name) = databasePath == ":memory:"
            ? (FileManager.default.temporaryDirectory.path, "its temporary file")
            : ((databasePath as NSString).deletingLastPathComponent, "'\(databasePath)'")
        let mocks = resolved(mocksDirectory)
        let database = resolved(folder.isEmpty ? "." : folder)
        // Compared as bytes: `String.hasPrefix` takes canonically equivalent names for equal (try7b F13).
        guard database == mocks || database.utf8.starts(with: (mocks == "/" ? "/" : mocks + "/").utf8) else { return nil }
        return "the database \(databasePath == ":memory:" ? ":memory: (\(name), in \(folder))" : name) lies inside --mocks-dir "
            + "'\(mocksDirectory)': every tenant could download it and its -wal as file mocks, and record mode could write over it; "
            + "choose a --db outside the mocks directory"
    }

    /// `path` made absolute, with its symbolic links resolved when it exists, else standardized.
    private static func resolved(_ path: String) -> String {
        FileMockDirectory.realPath(path) ?? URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Why the missing directory `path` could not be created with its missing parents, judged
    /// from its nearest existing ancestor (nothing is created here: the options are checked
    /// before anything is touched): that ancestor is no directory, or this process may not
    /// create entries in it. Nil when it can be. Tester finding tester36a-F5: record mode found
    /// out only after opening the database, and exited 1 with "does not exist or is not a
    /// directory", hiding why.
    static func whyNotCreatable(_ path: String) -> String? {
        var ancestor = URL(fileURLWithPath: path).standardizedFileURL
        while !FileManager.default.fileExists(atPath: ancestor.path), ancestor.path != "/" {
            ancestor.deleteLastPathComponent()
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "'\(ancestor.path)' is a file, not a directory"
        }
        guard access(ancestor.path, W_OK | X_OK) == 0 else {
            return "this process may not create entries in '\(ancestor.path)' (\(String(cString: strerror(errno))))"
        }
        return nil
    }

    /// Creates directory `path` and its missing parents (`mkdir -p`, mode 0777 less the umask);
    /// nil when done or it exists, else the directory that failed and the system's reason.
    static func createDirectory(_ path: String) -> String? {
        var made = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            made += "/" + component
            if mkdir(made, 0o777) != 0, errno != EEXIST {
                return "mkdir '\(made)': \(String(cString: strerror(errno)))"
            }
        }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? nil : "'\(path)' is not a directory"
    }

    /// A readable file of at most 16 MiB holding a PEM certificate block.
    private static func checkCertificateFile(_ path: String) throws(UnusableOption) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let handle = FileHandle(forReadingAtPath: path) else {
            throw UnusableOption(option: "upstream-ca-file", problem: "'\(path)' is not a readable file")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16 << 20)) ?? Data()
        guard head.range(of: Data(pemCertificateLabel.utf8)) != nil else {
            throw UnusableOption(
                option: "upstream-ca-file", problem: "'\(path)' holds no PEM certificate (a '\(pemCertificateLabel)' block)")
        }
    }
}

extension CatbirdServer.Settings {
    /// The start-up warning when ``journalBodyLimit`` is larger than ``maxBodySize``: accepted
    /// (a file mock's or an upstream's answer may be longer than any request), but no request
    /// body ever is, and the SQL route's per-value and memory limits grow with the journal body
    /// limit (docs/protocol.md#sql), so a mistaken `100gb` lifts them too (tester finding
    /// T11-F12). Nil otherwise.
    public var journalBodyLimitWarning: String? {
        guard journalBodyLimit > maxBodySize else { return nil }
        return "--journal-body-limit (\(journalBodyLimit) bytes) is larger than --max-body-size (\(maxBodySize) bytes): no request body "
            + "is longer than --max-body-size, so only response bodies are kept past it, and the SQL route's per-value and memory "
            + "limits grow with the journal body limit (docs/protocol.md#sql)"
    }

    /// The start-up warning when ``retention``'s byte limit is smaller than one row can be at
    /// ``journalBodyLimit`` (two bodies of it): such a row never fits in any share, so it is
    /// pruned at the next pass, about 2 s after it was written, before a test's count or wait
    /// reads it (tester finding tester34b-F6: accepted silently with `--journal-body-limit 30mb
    /// --journal-max-bytes 1mb`). Warned, not refused: rows with smaller bodies are kept as
    /// usual. Nil otherwise.
    public var journalMaxBytesWarning: String? {
        let largest = Self.largestJournalRow(bodyLimit: journalBodyLimit)
        guard let maxBytes = retention.journalMaxBytes, maxBytes < largest else { return nil }
        return "--journal-max-bytes (\(maxBytes) bytes) is smaller than one journal row can be at --journal-body-limit "
            + "(\(journalBodyLimit) bytes: two bodies of it, a head of up to 32 KiB and 64 bytes a row, \(largest) bytes): a row "
            + "that large never fits in the limit and is pruned at the next retention pass, before a count or wait can read it; "
            + "raise --journal-max-bytes or lower --journal-body-limit (docs/operations.md#retention)"
    }

    /// The most bytes one journal row counts for `--journal-max-bytes` with bodies cut at
    /// `bodyLimit`: two bodies, the request's url and header fields (at most the 32 KiB of a
    /// connection's memory) and 64 bytes a row (docs/operations.md#retention; tester finding
    /// tester42b-F7: two bodies alone were compared, so `--journal-body-limit 512kb
    /// --journal-max-bytes 1mb` was not warned, and a row with two cut bodies was pruned).
    static func largestJournalRow(bodyLimit: Int) -> Int {
        let (bodies, overflow) = bodyLimit.multipliedReportingOverflow(by: 2)
        return overflow ? Int.max : bodies.addingReportingOverflow(32 * 1024 + 64).overflow ? Int.max : bodies + 32 * 1024 + 64
    }

    /// Admin tokens shorter than this many characters get a start-up warning
    /// (``adminTokenWarning``): 16.
    public static let shortAdminToken = 16

    /// The start-up warning when ``adminToken`` is shorter than ``shortAdminToken`` characters:
    /// the token is redacted wherever it stands alone in a header value (docs/operations.md#admin-token),
    /// so a short or word-like one rewrites the app's own values in the journal and upstream
    /// (tester finding tester30a-F10: with `json`, `Content-Type: application/json` was
    /// journaled and forwarded as `application/[redacted]`, and header counts missed it).
    /// Warned, not refused: the token works as a credential all the same. It never quotes the
    /// token (the token is never logged). Nil otherwise.
    public var adminTokenWarning: String? {
        guard let adminToken, adminToken.count < Self.shortAdminToken else { return nil }
        return "the admin token is \(adminToken.count.counted("character", "characters")) long: it is redacted wherever it stands alone in "
            + "a header value, in the journal and upstream, so a short or word-like token rewrites the app's own values (a token "
            + "'json' makes Content-Type: application/json application/[redacted]); use \(Self.shortAdminToken) or more random "
            + "characters (docs/operations.md#admin-token)"
    }

    /// The start-up warnings of options given that cannot take effect, each naming what is
    /// missing: `--files-with-query` without `--mocks-dir` (no file mocks are served),
    /// `--upstream-timeout` or `--upstream-ca-file` without `--redirect-url` or `--proxy`
    /// (nothing is forwarded; record mode needs one of them anyway). Warned, not refused: a CI
    /// template may pass them always (tester finding T14B-F10: they were accepted without a word).
    public var ineffectiveOptionWarnings: [String] {
        var warnings: [String] = []
        if filesIncludeQuery && mocksDirectory == nil {
            warnings.append("--files-with-query has no effect without --mocks-dir (CATBIRD_MOCKS_DIR): no file mocks are served")
        }
        if redirectURL == nil && !proxyEnabled {
            let given = [("--upstream-timeout", upstreamTimeout != nil), ("--upstream-ca-file", upstreamCAFile != nil)]
            for (option, isGiven) in given where isGiven {
                warnings.append("\(option) has no effect without --redirect-url or --proxy: nothing is forwarded")
            }
        }
        return warnings
    }

    /// The start-up warning of `--proxy` on an address beyond loopback: whoever reaches the port
    /// may send requests through this server to any host it can reach, the internal network's
    /// included (an open proxy; tester finding tester50c-F11). Nil on loopback or without `--proxy`.
    public var openProxyWarning: String? {
        guard proxyEnabled, !listensOnLoopbackOnly else { return nil }
        return "--proxy on \(host): anyone who can reach the port can send requests through this server to any host it can "
            + "reach (an open proxy, the hosts of its own network included); listen on 127.0.0.1, or keep the port behind a "
            + "firewall that admits only the test machines"
    }
}
