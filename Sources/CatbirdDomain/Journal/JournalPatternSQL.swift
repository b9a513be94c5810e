import CatbirdMatching
import CatbirdStorage
@_spi(Server) import CatbirdWire

/// A request pattern as a condition on `requests` rows, so counting and finding run in SQLite
/// (docs/matching.md#request-matching): the same rows match as with the Swift matcher.
///
/// The method (`method = ?`) and an `equal` url (`url = ?`) are said in SQL, served by the
/// `requests_by_tenant_method_url` index. Everything else — a `wildcard` or `regexp` url,
/// header patterns, a body pattern — is decided by ``RequestMatchFunction`` (the Swift matcher
/// on the row's bytes) on the rows those conditions leave: the function is as cheap per row as
/// SQLite's own `GLOB`, and exact by construction (docs/protocol.md#count).
struct JournalPatternSQL {
    /// `AND …` terms to append to a `WHERE` over `requests`.
    private(set) var conditions = ""
    /// Values for the `?` in ``conditions``, in order.
    private(set) var bindings: [SQLiteValue] = []
    /// Whether the rows are best read in id order through `requests_by_tenant` (the caller
    /// writes `id > ?`, not `+id > ?`): the pattern reads columns only the table holds (headers,
    /// body) and has no `equal` url to narrow the rows first, so the table is read in its own
    /// order rather than once per index entry in url order.
    let scansByID: Bool

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
        scansByID = readsRows && !equalURL
        conditions += scansByID ? " AND +method = ?" : " AND method = ?"
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
