import Foundation

extension Catbird {
    /// Entries listed in a ``requestedMismatch(_:times:)`` message at most, of each kind: 10.
    public static let listedEntries = 10

    /// Why the caller's tenant did not receive exactly `times` requests matching `pattern`, or
    /// nil when it did: what ``assertRequested(_:times:file:line:)`` fails with.
    ///
    /// The message names the pattern and both counts, lists the matching requests (up to
    /// ``listedEntries``), then the latest requests nothing answered with their closest mocks
    /// and the fields that differed, for example:
    ///
    /// ```text
    /// expected 1 request matching POST equal "/api/users" in tenant "t", found 0
    /// matching requests: none
    /// requests no mock answered (latest 1):
    ///   #4 POST /api/usres → 404
    ///     closest: mock 2 (POST equal "/api/users") of tenant "t": url differs (expected equal "/api/users", got "/api/usres")
    /// ```
    ///
    /// - Throws: ``CatbirdError`` (400 for an invalid pattern), `URLError` on a transport
    ///   failure, `DecodingError` for an unreadable answer.
    public func requestedMismatch(_ pattern: RequestPattern, times: Int) throws -> String? {
        let count = try count(matching: pattern)
        guard count != times else { return nil }
        let matching = try perform(APICall.find(pattern, since: nil, from: nil, until: nil, limit: Self.listedEntries))
        let unmatched = try perform(APICall.unmatched(since: nil, limit: Self.listedEntries, newestFirst: true))
        return RequestedMismatch(
            pattern: pattern, times: times, count: count, tenant: parallelId ?? "", matching: matching.requests,
            unmatched: unmatched.requests.reversed()
        ).message
    }
}

/// The text of a failed ``Catbird/assertRequested(_:times:file:line:)``.
struct RequestedMismatch {
    let pattern: RequestPattern
    let times: Int
    let count: Int
    let tenant: String
    let matching: [CatbirdRequest]
    let unmatched: [CatbirdRequest]

    var message: String {
        let place = tenant.isEmpty ? "the default tenant" : "tenant \(JSONValue.string(tenant).jsonText)"
        var lines = ["expected \(times) request\(times == 1 ? "" : "s") matching \(pattern.summary) in \(place), found \(count)"]
        if matching.isEmpty {
            lines.append("matching requests: none")
        } else {
            lines.append("matching requests\(count > matching.count ? " (first \(matching.count))" : ""):")
            lines += matching.map { "  \(Self.line(for: $0))" }
        }
        if unmatched.isEmpty {
            lines.append("requests no mock answered: none")
        } else {
            lines.append("requests no mock answered (latest \(unmatched.count)):")
            for entry in unmatched {
                lines.append("  \(Self.line(for: entry))")
                let misses = entry.nearMisses ?? []
                if let closest = misses.first {
                    lines.append("    closest: \(closest.summary)")
                    lines += misses.dropFirst().map { "    then: \($0.summary)" }
                } else {
                    lines.append("    no mocks to compare with")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `#4 POST /api/usres → 404`.
    static func line(for entry: CatbirdRequest) -> String {
        "#\(entry.id) \(entry.method.rawValue) \(entry.url) → \(entry.response.status.map(String.init) ?? "?")"
    }
}

#if canImport(XCTest)
import XCTest

extension Catbird {
    /// Asserts that the caller's tenant received exactly `times` requests matching `pattern`
    /// (the mocks' rules, body matchers included). On failure, XCTest shows the message of
    /// ``requestedMismatch(_:times:)``: the matching requests, and the requests nothing
    /// answered with their closest mocks and the fields that differed, rather than
    /// "2 is not equal to 1". A server that cannot be asked fails the test with its error.
    public func assertRequested(_ pattern: RequestPattern, times: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        do {
            if let message = try requestedMismatch(pattern, times: times) { XCTFail(message, file: file, line: line) }
        } catch {
            XCTFail("Catbird could not check the requests matching \(pattern.summary): \(error)", file: file, line: line)
        }
    }
}

extension Catbird.TestTenant {
    /// Asserts that this test's tenant received exactly `times` requests matching `pattern`;
    /// see ``Catbird/assertRequested(_:times:file:line:)``.
    public func assertRequested(_ pattern: RequestPattern, times: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        catbird.assertRequested(pattern, times: times, file: file, line: line)
    }
}
#endif
