import CatbirdSupport

/// The file name, relative to the mocks directory, that a request-target maps to, before the
/// `Accept` candidates are added. Rules: `docs/files.md#request-to-file`.
///
/// - origin-form `/a/b?q` → `a/b`; absolute-form `http://Host:8080/a/b` → `host/a/b`;
/// - a trailing `/` (or an empty path) names `index`;
/// - a path without extension whose name is a directory also names that directory's `index`
///   (``directoryIndex``: `/api/users` is `api/users/index` when `api/users/` holds `1`);
/// - the path is percent-decoded exactly once (`%20` → space, `%252e` → `%2e`);
/// - with `includesQuery`, a query is kept in the last segment: `/search?q=a` → `search?q=a`
///   (a `/` in the query written `%2F`).
///
/// - a fragment (from a raw `#` on, which a client never sends and forwarding drops) is not
///   part of the name: `/hash#frag` → `hash`, the name its forwarded and recorded answer has
///   (tester finding T12-F8); a `#` in a name is written `%23`.
///
/// Refused (nil), so that no name can leave the directory: a `..` segment after decoding (so
/// `%2e%2e` and `..%2f` too), a backslash (in the path, or in a query kept in the name: T15B-F12),
/// a control character after decoding (a NUL, a line
/// break: `%0A` made a recorded file's name hold a line feed, tester finding T13B-F10), bytes
/// that are not UTF-8, a host that is not a
/// plain host name or address, names ending in the sidecar suffix, and a record mode temporary
/// file's name (``RecordingTemporaryFile``, T12-F3), which are never served nor recorded.
public struct FileMockName: Sendable, Equatable {
    /// Path segments, none empty, `.` or `..`.
    public var segments: [String]
    /// Whether the last segment (before any query) has an extension, so no `Accept` candidates
    /// are tried.
    public var hasExtension: Bool

    /// The name joined with `/`.
    public var path: String { segments.joined(separator: "/") }

    /// The `index` inside this name, tried when the name itself is a directory and recorded
    /// there when a directory is (or must become) in its place (`docs/files.md#request-to-file`):
    /// `api/users` → `api/users/index`. Nil for a name that is an `index` already (a trailing
    /// `/`), has an extension, or carries a query (``init(target:includesQuery:)``).
    public var directoryIndex: FileMockName? {
        guard !namesIndex, !hasExtension, !hasQuery else { return nil }
        var index = self
        index.segments.append("index")
        index.namesIndex = true
        return index
    }

    /// Whether the last segment is the `index` a trailing `/` (or an empty path) names.
    public private(set) var namesIndex = false
    /// Whether the query string is part of the last segment (`--files-with-query`).
    public private(set) var hasQuery = false

    public init?(target: String, includesQuery: Bool) {
        guard case let .success(name) = Self.named(target: target, includesQuery: includesQuery) else { return nil }
        self = name
    }

    /// Why a request-target maps to no file name.
    struct Refusal: Error {
        let reason: String
    }

    private init(segments: [String], hasExtension: Bool, namesIndex: Bool, hasQuery: Bool) {
        self.segments = segments
        self.hasExtension = hasExtension
        self.namesIndex = namesIndex
        self.hasQuery = hasQuery
    }

    /// The name `target` maps to, or why it maps to none: the rule that refused it, as a journal
    /// `problem` and a 404 say it (tester finding tester36a-F7: six causes were one sentence).
    static func named(target: String, includesQuery: Bool) -> Result<FileMockName, Refusal> {
        func refused(_ reason: String) -> Result<FileMockName, Refusal> { .failure(Refusal(reason: reason)) }
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        var host: String?
        if let scheme = ["http://", "https://"].first(where: { target.lowercased().hasPrefix($0) }) {
            rest = rest.dropFirst(scheme.count)
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            guard let name = Self.hostName(rest[..<authorityEnd]) else {
                return refused("its host is not a plain host name or address (letters, digits, '.', '-', '_', or an IP address in brackets)")
            }
            host = name
            rest = rest[authorityEnd...]
        }
        let queryStart = rest.firstIndex(of: "?")
        let rawPath = queryStart.map { rest[..<$0] } ?? rest
        let query = queryStart.map { rest[rest.index(after: $0)...] }
        guard let decoded = Self.percentDecoded(rawPath) else {
            return refused("its path is not UTF-8 once percent-decoded (a file name is UTF-8 text)")
        }
        if decoded.contains("\\") { return refused("its path holds a backslash ('\\' or %5C), which a file name may not hold") }
        if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return refused("its path holds a control character once percent-decoded (such as %00 or %0A), which a file name may not hold")
        }
        var segments: [String] = []
        var namesIndex = false
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
            if segment == ".." { return refused("its path has a '..' segment once percent-decoded (%2e%2e too), which would leave the mocks directory") }
            segments.append(String(segment))
        }
        if decoded.isEmpty || decoded.hasSuffix("/") || segments.isEmpty {
            segments.append("index")
            namesIndex = true
        }
        // Every segment, not only the last: `/a.catbird-response.json/b` recorded made a
        // directory of `/a`'s sidecar's name, and every recording of `/a` then failed ("Is a
        // directory"; tester finding tester31a-F4).
        let reserved = "is a sidecar's (\(FileMockSidecar.suffix)) or a recording's temporary file's, which no request may name"
        if segments.contains(where: Self.isReserved) { return refused("a segment of its path \(reserved)") }
        let last = segments[segments.count - 1]
        let hasExtension = last.dropFirst().contains(".")
        var hasQuery = false
        if includesQuery, let query, !query.isEmpty {
            // The query is kept as received (not decoded), so only its raw bytes can hold a
            // backslash: `/q?a\b` was served and recorded as `q?a\b` (T15B-F12).
            guard !query.unicodeScalars.contains(where: { $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) else {
                return refused("its query (part of the name with --files-with-query) holds a backslash or a control character")
            }
            let withQuery = last + "?" + query.replacingSlashes()
            // `/q?y.catbird-response.json` would name `q?y`'s sidecar (tester finding try8b F9).
            if Self.isReserved(withQuery) { return refused("its last segment with its query \(reserved)") }
            segments[segments.count - 1] = withQuery
            hasQuery = true
        }
        if let host { segments.insert(host, at: 0) }
        return .success(FileMockName(segments: segments, hasExtension: hasExtension, namesIndex: namesIndex, hasQuery: hasQuery))
    }

    /// Whether `fileName` (a segment; a last one with any query and `Accept` extension) is a
    /// name no request may map to, as a file or as a directory on the way to one: a sidecar's (``FileMockSidecar/suffix``: try8b F9, and T15B-F4,
    /// `/foo?x=.catbird-response` with `Accept: application/json` naming `foo?x=`'s sidecar
    /// `foo?x=.catbird-response.json`) or a recording's temporary file's
    /// (``RecordingTemporaryFile``, T12-F3). ``FileMockDirectory/candidates(target:accept:)``
    /// leaves such names out, so they are neither served nor recorded.
    static func isReserved(_ fileName: some StringProtocol) -> Bool {
        fileName.hasSuffix(FileMockSidecar.suffix) || RecordingTemporaryFile.isTemporary(fileName)
    }

    /// The host of an authority (`user@Host:port`, `[::1]:80`) lowercased, or nil when it is not
    /// made of ASCII letters, digits, `.`, `-`, `_` (or ASCII hex digits, `:` and `.` inside
    /// brackets; ``ASCIIByte``).
    static func hostName(_ authority: Substring) -> String? {
        let afterUser = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        var host: Substring
        if afterUser.hasPrefix("["), let close = afterUser.firstIndex(of: "]") {
            host = afterUser[afterUser.index(after: afterUser.startIndex)..<close]
            guard host.utf8.allSatisfy({ ASCIIByte.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return nil }
        } else {
            host = afterUser.prefix { $0 != ":" }
            guard host.utf8.allSatisfy({ ASCIIByte.isLetter($0) || ASCIIByte.isDigit($0) || "._-".utf8.contains($0) }) else { return nil }
        }
        guard !host.isEmpty, host != ".", host != ".." else { return nil }
        return host.lowercased()
    }

    /// `text` with each `%XY` (two hex digits) replaced by its byte, once; other `%` kept. Nil
    /// when the result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        PercentDecoding.text(text, stray: .kept)
    }
}

extension Substring {
    fileprivate func replacingSlashes() -> String {
        split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
    }
}
