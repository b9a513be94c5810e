import CatbirdMatching
import CatbirdStorage
@_spi(Server) import CatbirdWire

/// A request pattern as a condition on `requests` rows, so counting and finding run in SQLite
/// (docs/matching.md#request-matching): the same rows match as with the Swift matcher.
///
/// The caller narrows to a tenant's rows after an id (`tenant = ? AND id > ?`), which the
/// `requests_by_tenant` index (tenant, id, method, url) serves in id order; the method
/// (`method = ?`) and an `equal` url (`url = ?`) are said in SQL and compared on that index's
/// entries. Everything else — a `wildcard` or `regexp` url, header patterns, a body pattern — is
/// decided by ``RequestMatchFunction`` (the Swift matcher on the row's bytes) on the rows those
/// conditions leave: the function is as cheap per row as SQLite's own `GLOB`, and exact by
/// construction (docs/protocol.md#count). Without headers and body the index alone answers.
struct JournalPatternSQL {
    /// `AND …` terms to append to a `WHERE` over `requests`.
    private(set) var conditions = ""
    /// Values for the `?` in ``conditions``, in order.
    private(set) var bindings: [SQLiteValue] = []

    /// - Parameters:
    ///   - pattern: the request pattern.
    ///   - deadline: when a regular expression the Swift matcher is still running fails the
    ///     statement (nil: never).
    init(_ pattern: RequestPattern, deadline: ContinuousClock.Instant? = nil) {
        // A pattern with parts beyond the method, url and headers (a body pattern, say) is
        // given the body column too.
        let hasOtherParts = RequestPattern(method: pattern.method, url: pattern.url, headers: pattern.headers) != pattern
        let readsRows = hasOtherParts || !pattern.headers.isEmpty
        let equalURL = pattern.url.kind == .equal
        conditions += " AND method = ?"
        bindings.append(.text(pattern.method.rawValue))
        if equalURL {
            conditions += " AND url = ?"
            bindings.append(.text(pattern.url.value))
        }
        let matchesURL = !equalURL && !pattern.url.matchesEverything
        guard matchesURL || readsRows else { return }
        // Only the columns the pattern reads (NULL for the others): without the headers and the
        // body, the covering index answers the whole query.
        let headersColumn = pattern.headers.isEmpty ? "NULL" : "request_headers"
        let bodyColumn = hasOtherParts ? "request_body" : "NULL"
        conditions += " AND \(RequestMatchFunction.name)(?, ?, url, \(headersColumn), \(bodyColumn))"
        bindings += [RequestMatchFunction.argument(pattern), deadline.map(RequestMatchFunction.argument) ?? .integer(0)]
    }
}
