import CatbirdSupport
import Foundation

/// Mocks a 404's hints may name although they are not among its near misses
/// (``NearMissReport/slips``; docs/matching.md#near-misses): the hints exist for a mock that
/// is not the closest (a `get` mock at distance 1 behind unrelated urls at 0.5-0.9), and in a
/// tenant with three or more mocks of the request's method such a mock was never among the
/// three near misses they were chosen from (tester finding tester21a-F4). Found without
/// ranking: a mock whose url matches and that differs in its method alone (distance 1), and
/// the `equal`-url mocks of the request's method whose url is one of ``urls(of:)``.
public enum NearMissSlips {
    /// Slips kept per 404 at most, of each of the two kinds: 3.
    static let limit = 3

    /// The urls an `equal` url that slips from `target` may be (WireMock's `urlPath` habit and
    /// a trailing `/`, try9a F6): its path without its query, when it has one; its path with a
    /// `/` added, or removed when it ends in one (not the root's), its query (if any) kept; and
    /// its query with each `+` written `%20`, or each `%20` written `+` (a space either way to
    /// a form decoder: tester finding tester45a-F11, the hint for it was lost behind three
    /// closer mocks); and, when it has an ASCII capital, the whole target with its capitals
    /// lowered (a mock in other letter case whose url has a capital is found by
    /// ``NearMissCatalog/mixedCaseSlips(of:)``; tester45a-F11 too); and, when its path holds
    /// `//`, its path with each run of `/` made one, its query kept (tester50b-F6).
    static func urls(of target: String) -> [String] {
        var bytes = target
        return bytes.withUTF8 { bytes in
            let mark = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            guard mark > 0 else { return [] }
            let path = UnsafeBufferPointer(rebasing: bytes[..<mark])
            let query = UnsafeBufferPointer(rebasing: bytes[mark...])
            var urls: [String] = []
            urls.reserveCapacity(2)
            if mark < bytes.count { urls.append(String(decoding: path, as: UTF8.self)) }
            if path.last == UInt8(ascii: "/") {
                if path.count > 1 {
                    urls.append(String(decoding: UnsafeBufferPointer(rebasing: path.dropLast()), as: UTF8.self)
                        + String(decoding: query, as: UTF8.self))
                }
            } else {
                urls.append(String(decoding: path, as: UTF8.self) + "/" + String(decoding: query, as: UTF8.self))
            }
            if mark < bytes.count, !query.contains(UInt8(ascii: "#")) {
                let text = String(decoding: query, as: UTF8.self)
                let spaces = text.contains("+") ? text.replacingOccurrences(of: "+", with: "%20")
                    : text.contains("%20") ? text.replacingOccurrences(of: "%20", with: "+") : nil
                if let spaces { urls.append(String(decoding: path, as: UTF8.self) + spaces) }
            }
            if bytes.contains(where: { ASCIICase.lower($0) != $0 }) {
                urls.append(String(decoding: bytes.map(ASCIICase.lower), as: UTF8.self))
            }
            // Looked for by bytes: most 404s' paths have no `//`, and make no text for it.
            if path.indices.dropFirst().contains(where: { path[$0] == UInt8(ascii: "/") && path[$0 - 1] == UInt8(ascii: "/") }) {
                urls.append(
                    collapsingSlashes(Substring(String(decoding: path, as: UTF8.self))) + String(decoding: query, as: UTF8.self))
            }
            return urls
        }
    }

    /// `path` with each run of `/` written as one (`//api//feed` is `/api/feed`): the path an
    /// app meant when its base URL ends in `/` (tester finding tester50b-F6).
    public static func collapsingSlashes(_ path: Substring) -> String {
        var collapsed = ""
        collapsed.reserveCapacity(path.utf8.count)
        var previous: Character?
        for character in path where !(character == "/" && previous == "/") {
            collapsed.append(character)
            previous = character
        }
        return collapsed
    }
}
