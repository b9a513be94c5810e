import CatbirdSupport
import Foundation

/// The 404 reason's hint for a request whose path is Catbird's own control path spelled another
/// way: a doubled `/` (a base URL ending in `/` joined with `/catbird/…`), another letter case
/// (`/Catbird/api/mocks`) or a percent-encoded letter (`/%63atbird/…`). Control routes are
/// `/catbird` and the paths under `/catbird/` exactly as written; such a request is app traffic
/// (matched, journaled), so a harness with a trailing `/` in its base URL saw only "no mock
/// matched" for every control call (tester finding tester42a-F5).
enum ControlPathSlipHint {
    /// `"//catbird/api/mocks" is not a control route: control routes are /catbird and the paths
    /// under /catbird/, as written (a doubled '/', another letter case or a %XX escape makes app
    /// traffic of it); check the base URL for a trailing '/'`; nil for any other path. Looks
    /// at the path of an origin-form `target` (its query left out) only when it holds
    /// `catbird` in some case after its slashes.
    static func hint(target: String) -> String? {
        // Most 404s stop here: the first byte after the leading slashes is no `c`, `C` or `%`.
        let first = target.utf8.first { $0 != UInt8(ascii: "/") }
        guard target.utf8.first == UInt8(ascii: "/"), let first, first | 0x20 == UInt8(ascii: "c") || first == UInt8(ascii: "%")
        else { return underPrefixHint(target: target) }
        let path = Substring(target.firstIndex(of: "?").map { target[..<$0] } ?? target[...])
        guard !(path == "/catbird" || path.hasPrefix("/catbird/")) else { return nil }
        let trimmed = path.drop { $0 == "/" }
        let decoded = (PercentDecoding.text(trimmed, stray: .refused) ?? String(trimmed)).lowercased()
        guard decoded == "catbird" || decoded.hasPrefix("catbird/") else { return nil }
        let doubled = path.hasPrefix("//")
        return "\(JSONText.shortString(String(path))) is not a control route: control routes are /catbird and the paths under "
            + "/catbird/, as written (a doubled '/', another letter case or a %XX escape makes app traffic of it)"
            + (doubled ? "; check the base URL for a trailing '/'" : "")
    }

    /// `"/prefix/catbird/api/mocks" is Catbird's control path under "/prefix": …` for an
    /// origin-form target whose path holds `/catbird/api/` after a prefix (a client given the
    /// app's base URL with a path, `Catbird(url: "http://host:8080/prefix")`: its control calls
    /// were app traffic, journaled in its tenant, and their 404 said only "no mock matched";
    /// tester finding tester48c-F13); nil for any other path.
    private static func underPrefixHint(target: String) -> String? {
        // Every 404 comes here: a scan of the path's bytes (a Character search cost a 404 27,000
        // instructions, measured with Benchmarks/miss-callgrind.sh); the text is made only when found.
        guard target.utf8.first == UInt8(ascii: "/"), let offset = controlPathOffset(in: target), offset > 0 else { return nil }
        let start = target.utf8.index(target.utf8.startIndex, offsetBy: offset)
        let path = Substring(target.firstIndex(of: "?").map { target[..<$0] } ?? target[...])
        let prefix = String(target[..<start])
        return "\(JSONText.shortString(String(path))) is Catbird's control path under the prefix \(JSONText.shortString(prefix)), "
            + "which makes app traffic of it: control routes are /catbird and the paths under /catbird/ from the server's root; "
            + "give the client the server's root URL (Catbird(url: http://host:port), no path)"
    }

    /// The byte offset of `/catbird/api/` in `target`'s path (before any `?`), or nil.
    private static func controlPathOffset(in target: String) -> Int? {
        let needle: StaticString = "/catbird/api/"
        let length = needle.utf8CodeUnitCount
        var target = target
        return target.withUTF8 { bytes -> Int? in
            guard bytes.count > length else { return nil }
            let first = needle.utf8Start
            var index = 0
            while index + length <= bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "?") { return nil }
                if byte == first[0], memcmp(bytes.baseAddress! + index, first, length) == 0 { return index }
                index += 1
            }
            return nil
        }
    }
}
