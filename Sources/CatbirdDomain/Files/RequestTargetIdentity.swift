import CatbirdSupport

/// A request-target in the form RFC 3986 section 6.2.2 normalizes it to, so that two spellings
/// of one resource compare equal and two resources do not: a percent-encoded unreserved
/// character is decoded (`%41` is `A`, `%7e` is `~`), the hex digits of the other escapes are
/// uppercased (`%2f` is `%2F`), `.` and `..` segments are removed (section 5.2.4), and in
/// absolute form the scheme and host are lowercased, a default port (`:80`, `:443`) dropped and
/// an empty path made `/` (section 6.2.3). Nothing else is equal: `%2F` is not `/` (one segment
/// against two), an empty query (`/a?`) is not no query (section 6.2.3 keeps the delimiter),
/// `//a` is not `/a`.
///
/// Record mode compares a file's earlier request-target with the one that replaces it by this,
/// so that only two resources sharing one file name are reported (docs/files.md#recording;
/// tester finding T11-F1).
struct RequestTargetIdentity: Equatable {
    /// The normalized target's bytes.
    let bytes: [UInt8]

    init(_ target: String) {
        var rest = Substring(target)
        var output: [UInt8] = []
        let lowered = target.prefix(8).lowercased()
        let scheme = ["http://", "https://"].first { lowered.hasPrefix($0) }
        if let scheme {
            rest = rest.dropFirst(scheme.count)
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            var authority = rest[..<authorityEnd].lowercased()
            let defaultPort = scheme == "http://" ? ":80" : ":443"
            if authority.hasSuffix(defaultPort) { authority.removeLast(defaultPort.count) }
            output = Array((scheme + authority).utf8)
            rest = rest[authorityEnd...]
        }
        let queryStart = rest.firstIndex(of: "?")
        var path = Self.withoutDotSegments(PercentDecoding.normalizedEscapes(queryStart.map { rest[..<$0] } ?? rest))
        if scheme != nil, path.isEmpty { path = [UInt8(ascii: "/")] }
        output += path
        if let queryStart { output += PercentDecoding.normalizedEscapes(rest[queryStart...]) }
        bytes = output
    }

    /// `path` with its `.` and `..` segments applied (RFC 3986 section 5.2.4): `/a/./b/../c` is
    /// `/a/c`, `/a/.` is `/a/`.
    private static func withoutDotSegments(_ path: [UInt8]) -> [UInt8] {
        let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var kept: [ArraySlice<UInt8>] = []
        for (index, part) in parts.enumerated() {
            let isDot = part.elementsEqual(".".utf8), isDotDot = part.elementsEqual("..".utf8)
            guard isDot || isDotDot else {
                kept.append(part)
                continue
            }
            if isDotDot, kept.count > 1 { kept.removeLast() }
            if index == parts.count - 1 { kept.append([]) }
        }
        return Array(kept.joined(separator: [UInt8(ascii: "/")]))
    }
}
