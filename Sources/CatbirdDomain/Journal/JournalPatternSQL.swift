import CatbirdMatching
import CatbirdStorage
@_spi(Server) import CatbirdWire

/// A request pattern as a condition on `requests` rows, so counting and finding run in SQLite
/// (docs/matching.md#request-matching): the same rows match as with the Swift matcher, but for a
/// row whose request body the journal cut short (`request_body_truncated`), which matches only
/// a body pattern its kept part decides (``decidesOnCutBody(_:)``: a `contains` found there).
///
/// The caller narrows to a tenant's rows after an id (`tenant = ? AND id > ?`), which the
/// `requests_by_tenant` index (tenant, id, method, url) serves in id order; the method
/// (`method = ?`) and an ASCII `equal` url (`url = ?`) are said in SQL and compared on that
/// index's entries. Everything else — a `wildcard` or `regexp` url, header patterns, a body
/// pattern — is decided by ``RequestMatchFunction`` (the Swift matcher on the row's bytes) on
/// the rows those conditions leave: the function is as cheap per row as SQLite's own `GLOB`,
/// and exact by construction (docs/protocol.md#count). Without headers and body the index alone
/// answers.
///
/// An `equal` url matches as the mocks match it, by Swift's `==` (Unicode canonical
/// equivalence: `/caf\u{E9}` equals `/cafe\u{301}`, `/\u{212A}` equals `/K`), which SQL's byte
/// `=` is not (try7b F4). An ASCII value is equivalent to other bytes only through the three
/// characters of ``asciiWithOtherSpellings``: without them `url = ?` is exact; with one, rows
/// of other bytes whose url has a non-ASCII byte (`length(url)` in characters differs from its
/// length in bytes) go to the function too. A non-ASCII value is decided by the function on
/// every row.
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
        // A row whose request body the journal cut short matches only a body pattern its kept
        // part decides (``decidesOnCutBody(_:)``); compared before the function reads the body.
        if let body = pattern.body, !Self.decidesOnCutBody(body) { conditions += " AND request_body_truncated = 0" }
        // Only the columns the pattern reads (NULL for the others): without the headers and the
        // body, the covering index answers the whole query. A body pattern reads the headers too:
        // the body's `Content-Encoding` (``RequestMatchFunction``).
        let headersColumn = pattern.headers.isEmpty && pattern.body == nil ? "NULL" : "request_headers"
        let bodyColumn = hasOtherParts ? "request_body" : "NULL"
        let function = " \(RequestMatchFunction.name)(?, ?, url, \(headersColumn), \(bodyColumn))"
        let functionBindings = [RequestMatchFunction.argument(pattern), deadline.map(RequestMatchFunction.argument) ?? .integer(0)]
        let asciiEqualURL = equalURL && pattern.url.value.utf8.allSatisfy { $0 < 0x80 }
        if asciiEqualURL {
            bindings.append(.text(pattern.url.value))
            if !pattern.url.value.utf8.contains(where: Self.asciiWithOtherSpellings.contains) {
                conditions += " AND url = ?"
            } else if readsRows {
                conditions += " AND (url = ? OR \(Self.hasNonASCII))"
            } else {
                // Rows of the value's bytes never reach the function.
                conditions += " AND (url = ? OR (\(Self.hasNonASCII) AND" + function + "))"
                bindings += functionBindings
                return
            }
        }
        let urlByFunction = equalURL ? !asciiEqualURL : !pattern.url.matchesEverything
        guard urlByFunction || readsRows else { return }
        conditions += " AND" + function
        bindings += functionBindings
    }

    /// Whether `body` decides on the part of a body the journal kept (`--journal-body-limit`)
    /// what it would on the whole body: only a `contains` found there (the whole body holds it
    /// too). Any other kind is undecided on a cut body (tester18b F4): the kept part may match
    /// `equal`, an anchored `regexp`, `json` or `jsonPath` while the whole body does not
    /// (`^a+$` on 70,000 `a`s and a `b`), and the reverse. A cut row is therefore matched by a
    /// `contains` found in its kept part, and by no other body pattern: it is reported as a
    /// ``CutBodyMatches`` instead (docs/protocol.md#count).
    static func decidesOnCutBody(_ body: BodyPattern) -> Bool {
        body.kind == .contains
    }

    /// ` AND …` terms true for a row cut short (`request_body_truncated = 1`) that matches all
    /// but `pattern`'s body pattern and that a count leaves out for its body, and their values:
    /// for a `contains`, ` AND NOT catbird_request_matches(…)` over every column a pattern
    /// reads (the kept part lacks the text); for any other kind, none (every such row is
    /// undecided: ``decidesOnCutBody(_:)``). Appended after conditions that already narrowed
    /// the rows (``Journal/cutBodyMatches(of:matching:after:bounds:timeLimit:)``).
    static func leftOutWhenCut(_ pattern: RequestPattern, deadline: ContinuousClock.Instant?) -> (sql: String, bindings: [SQLiteValue]) {
        guard let body = pattern.body, decidesOnCutBody(body) else { return ("", []) }
        return (
            " AND NOT \(RequestMatchFunction.name)(?, ?, url, request_headers, request_body)",
            [RequestMatchFunction.argument(pattern), deadline.map(RequestMatchFunction.argument) ?? .integer(0)]
        )
    }

    /// The ASCII characters a text of other bytes can be canonically equivalent to (Swift's `==`):
    /// `K` (U+212A KELVIN SIGN), `;` (U+037E GREEK QUESTION MARK) and `` ` `` (U+1FEF GREEK VARIA),
    /// the only characters whose canonical decomposition is ASCII (Unicode never changes an
    /// assigned character's decomposition; `ASCIIOtherSpellingsTests` checks every scalar with
    /// the toolchain's `==`). Any other ASCII text equals only itself.
    static let asciiWithOtherSpellings: Set<UInt8> = [UInt8(ascii: "K"), UInt8(ascii: ";"), UInt8(ascii: "`")]

    /// True for a row whose url has a byte outside ASCII: its length in characters differs from
    /// its length in bytes (SQLite's `length` counts characters of a text, bytes of a blob).
    private static let hasNonASCII = "length(url) <> length(CAST(url AS BLOB))"
}
