@_spi(Server) import CatbirdWire
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
    /// - Throws: ``CatbirdError`` (400 for an invalid pattern, or, from the client with nothing
    ///   sent, for a negative `times`), `URLError` on a transport failure, ``CatbirdError`` for
    ///   an unreadable answer.
    ///
    /// When the journal kept only part of some matching requests' bodies, so the body pattern
    /// could not see all of it, the message says so (the count's `warnings`); when the count is
    /// short in a tenant and the default tenant holds requests the pattern matches (the app did
    /// not send `X-Catbird-Parallel-Id`: docs/tenancy.md), it names them. When the count is
    /// short, it ends with the tenant's other requests whose URL contains the pattern's literal
    /// path (an `equal` URL, or a `wildcard` one up to its first `*` or `?`, without a query),
    /// whatever answered them, up to ``listedEntries``, each with the method or `equal` URL that
    /// differs: the request a broader mock answered, sent with a query the pattern lacks, say.
    public func requestedMismatch(_ pattern: RequestPattern, times: Int) throws -> String? {
        // No count is negative: refuse rather than report "expected -1 requests …, found 0"
        // (tester finding tester22a-F13's nit).
        guard times >= 0 else {
            throw CatbirdError(refusal: "'times' must be 0 or more, not \(times) (refused by the client, nothing sent)")
        }
        let tenant = parallelId ?? ""
        let answer = try perform(APICall.countAnswer(pattern), parallelId: tenant)
        guard answer.count != times else { return nil }
        let matching = try perform(APICall.find(pattern, since: nil, from: nil, until: nil, limit: Self.listedEntries), parallelId: tenant)
        let unmatched = try perform(APICall.unmatched(since: nil, limit: Self.listedEntries, newestFirst: true), parallelId: tenant)
        // The default tenant's journal, read without a token: a short count's usual cause is
        // an app that sent its requests there. A server that refuses it just gives no hint.
        let defaultTenant = tenant.isEmpty || answer.count > times
            ? nil : try? perform(APICall.find(pattern, since: nil, from: nil, until: nil, limit: Self.listedDefaultTenantEntries), parallelId: nil)
        // A short count's other usual cause: the request came, but differs from the pattern in a
        // way a broader mock did not mind (a query string): the tenant's requests whose URL
        // contains the pattern's literal path (tester finding T18C-F4).
        let listed = Set((matching.requests + unmatched.requests).map(\.id))
        let similar = try answer.count < times ? Self.literalPath(of: pattern.url).map { path in
            try perform(APICall.requests(JournalFilter(url: path), since: nil, limit: Self.listedEntries + listed.count), parallelId: tenant)
                .requests.filter { !listed.contains($0.id) }.prefix(Self.listedEntries)
        } : nil
        var mismatch = RequestedMismatch(
            pattern: pattern, times: times, count: answer.count, tenant: tenant, matching: matching.requests,
            unmatched: unmatched.requests.reversed(), warnings: answer.warnings ?? [], inDefaultTenant: defaultTenant
        )
        mismatch.similar = similar.map { (path: Self.literalPath(of: pattern.url) ?? "", requests: Array($0)) }
        return mismatch.message
    }

    /// The literal path a URL pattern starts with: an `equal` value, or a `wildcard` value up to
    /// its first `*` or `?`, without a query; nil for a `regexp`, or when that leaves no more
    /// than `/`.
    static func literalPath(of url: PatternMatch) -> String? {
        let literal: Substring = switch url.kind {
        case .equal: url.value[...]
        case .wildcard: url.value.prefix { $0 != "*" && $0 != "?" }
        default: ""
        }
        let path = literal.prefix { $0 != "?" }
        return path.count > 1 ? String(path) : nil
    }

    /// Entries of the default tenant a ``requestedMismatch(_:times:)`` message lists at most: 3.
    static let listedDefaultTenantEntries = 3
}

/// The text of a failed ``Catbird/assertRequested(_:times:file:line:)``.
struct RequestedMismatch {
    let pattern: RequestPattern
    let times: Int
    let count: Int
    let tenant: String
    let matching: [CatbirdRequest]
    let unmatched: [CatbirdRequest]
    /// The count's warnings (matching requests whose body the journal kept cut short).
    var warnings: [String] = []
    /// The default tenant's entries the pattern matches, when the count was short in a tenant.
    var inDefaultTenant: CatbirdRequestPage?
    /// When the count was short: the pattern's literal path, and the tenant's requests whose URL
    /// contains it that neither list above shows, whatever answered them.
    var similar: (path: String, requests: [CatbirdRequest])?

    /// The reason of the 404 Catbird answered `entry` with, as the journal kept it; nil for
    /// another answer, or a body the journal cut.
    private static func notFoundReason(of entry: CatbirdRequest) -> String? {
        guard entry.response.status == 404, !entry.response.bodyTruncated else { return nil }
        return (try? JSONDecoder().decode(CatbirdErrorBody.self, from: entry.response.body))?.reason
    }

    var message: String {
        let place = tenant.isEmpty ? "the default tenant" : "tenant \(JSONValue.string(tenant).jsonText)"
        var lines = ["expected \(times) request\(times == 1 ? "" : "s") matching \(pattern.summary) in \(place), found \(count)"]
        lines += warnings.map { "note: \($0)" }
        if let inDefaultTenant, !inDefaultTenant.requests.isEmpty {
            let listed = inDefaultTenant.requests.map { Self.line(for: $0) }.joined(separator: ", ")
            let more = inDefaultTenant.hasMore ? ", … and more" : ""
            lines.append(
                "note: the default tenant has \(inDefaultTenant.requests.count == 1 && !inDefaultTenant.hasMore ? "a request" : "requests") "
                    + "matching it, sent without \(CatbirdAction.parallelIdHeaderField): \(listed)\(more); "
                    + "is the app sending its parallel id (\(JSONValue.string(tenant).jsonText))?")
        }
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
                } else if let reason = Self.notFoundReason(of: entry) {
                    // No near miss, but the 404 said why (a mock used up by its limit; tester
                    // finding tester48c-F8: "no mocks to compare with" hid it).
                    lines.append("    \(reason)")
                } else {
                    lines.append("    no mocks to compare with")
                }
            }
        }
        if let similar, !similar.requests.isEmpty {
            lines.append("other requests whose URL contains \(JSONValue.string(similar.path).jsonText) (first \(similar.requests.count), whatever answered them):")
            for entry in similar.requests {
                lines.append("  \(Self.line(for: entry))")
                lines += differences(from: entry).map { "    \($0)" }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// What tells `entry` apart from the pattern, as far as the client can say without the
    /// server's matcher: a different method, and for an `equal` URL the URL (naming a query the
    /// pattern lacks, since the query is part of the matched URL).
    private func differences(from entry: CatbirdRequest) -> [String] {
        var differences: [String] = []
        if entry.method.rawValue != pattern.method.rawValue {
            differences.append("method differs (expected \(pattern.method.rawValue), got \(entry.method.rawValue))")
        }
        if pattern.url.kind == .equal, entry.url != pattern.url.value {
            let queryOnly = entry.url.prefix { $0 != "?" } == pattern.url.value.prefix { $0 != "?" }
            differences.append(
                "url differs (expected \(pattern.url.summary), got \(JSONValue.string(entry.url).jsonText))"
                    + (queryOnly ? ": only the query, which the pattern's URL must match too" : ""))
        }
        return differences
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
            XCTFail("Catbird could not check the requests matching \(pattern.summary): \(readable(error))", file: file, line: line)
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
