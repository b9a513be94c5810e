import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// The journal's entries that a body pattern could not decide because the journal kept a prefix
/// of their request body (`--journal-body-limit`): `count` and `find` leave them out and say how
/// many there are, so a verification that counts 0 for a request its mock answered is not
/// silent (docs/protocol.md#count, try9a F5), nor one that counts a request whose kept part
/// matched but whose whole body may not (tester18b F4).
public struct CutBodyMatches: Sendable, Equatable {
    /// How many entries match all but the body pattern and were kept with a cut request body
    /// that the body pattern does not decide: a `contains` not found in the kept part, any other
    /// kind whatever the kept part holds (`JournalPatternSQL.decidesOnCutBody(_:)`).
    public var count: Int
    /// The first (lowest id) of them.
    public var firstID: Int64
    /// How many bytes of its request body the journal kept.
    public var firstKept: Int
    /// Its request body's full size in bytes.
    public var firstSize: Int
    /// Whether these are requests whose body the server refused before taking it (413, 503:
    /// ``Journal/refusedBodyMatches(of:matching:after:bounds:timeLimit:)``) rather than bodies
    /// the journal cut.
    public var refused = false

    /// The sentence `count` and `find` answer in `warnings`, and the Swift client's
    /// `requestedMismatch` quotes: `1 journaled request (#3, 65536 of its 100006 body bytes
    /// kept) matches all but the body pattern, which was tested on the part of the body the
    /// journal kept: raise --journal-body-limit (a body its client did not finish, its entry's
    /// problem says so, has no more)`.
    public var warning: String {
        let others = count > 1 ? " and \(count - 1) more" : ""
        if refused {
            return "\(count) journaled request\(count == 1 ? "" : "s") (#\(firstID), \(firstSize) body bytes\(others)) "
                + "match\(count == 1 ? "es" : "") all but the body pattern, and the server refused \(count == 1 ? "its body" : "their bodies") "
                + "before taking \(count == 1 ? "it" : "them") (413 past --max-body-size, or 503 past the buffered bodies' budget): "
                + "the app got that answer, not a mock's"
        }
        return "\(count) journaled request\(count == 1 ? "" : "s") (#\(firstID), \(firstKept) of its \(firstSize) body bytes kept\(others)) "
            + "match\(count == 1 ? "es" : "") all but the body pattern, which was tested on the part of the body the journal kept: "
            + "raise --journal-body-limit (a body its client did not finish, its entry's problem says so, has no more)"
    }
}

extension Journal {
    /// The condition that leaves out a request refused before its body was taken (413 past
    /// `--max-body-size`, 503 past the buffered bodies' budget: answered by no mock): its body is
    /// not the journal's cut, and raising `--journal-body-limit` cannot help (tester finding
    /// tester62b-F1: such a 413 was counted in `cutBodyMatches` with that advice).
    static let bodyReceived = " AND NOT " + bodyRefused

    /// The condition that keeps only the requests refused before their body was taken (``bodyReceived``).
    static let bodyRefused = "(answered_by = 'none' AND status IN (413, 503))"

    /// How long ``cutBodyMatches(of:matching:after:bounds:timeLimit:)`` may take by default:
    /// 1 second (it follows a count or find that may have taken its own 2 seconds).
    public static let cutBodyTimeLimit = Duration.seconds(1)

    /// The tenant's entries after `since` (within `bounds`, a find's) that match `pattern` in
    /// everything but its body pattern and whose request body the journal kept cut short, the
    /// body pattern undecided on the kept part (a `contains` not found there; any other kind):
    /// the ones a count or find over the same range leaves out only because of the cut
    /// (docs/matching.md#body-matchers). Nil when there
    /// are none, when the pattern has no body pattern, or when looking takes longer than
    /// `timeLimit` (the count or find is answered without it).
    ///
    /// One statement: the rows kept cut short (`request_body_truncated = 1`) go to the matcher
    /// without the body pattern, then, for a `contains`, to the whole pattern; other rows are
    /// not matched again.
    /// - Throws: `SQLiteError` when reading fails.
    public func cutBodyMatches(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, after since: Int64 = 0, bounds: JournalFindQuery? = nil,
        timeLimit: Duration = cutBodyTimeLimit
    ) throws -> CutBodyMatches? {
        try bodyMatches(of: tenant, matching: pattern, after: since, bounds: bounds, timeLimit: timeLimit, refused: false)
    }

    /// The tenant's entries after `since` (within `bounds`) that match `pattern` in everything
    /// but its body pattern and whose body the server refused before taking it (413 past
    /// `--max-body-size`, 503 past the buffered bodies' budget): a count or find leaves them out,
    /// and says so (tester finding tester63a-F4: after the 413s a count answered 0 without a
    /// word). Nil when there are none, or as ``cutBodyMatches(of:matching:after:bounds:timeLimit:)``.
    /// - Throws: `SQLiteError` when reading fails.
    public func refusedBodyMatches(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, after since: Int64 = 0, bounds: JournalFindQuery? = nil,
        timeLimit: Duration = cutBodyTimeLimit
    ) throws -> CutBodyMatches? {
        try bodyMatches(of: tenant, matching: pattern, after: since, bounds: bounds, timeLimit: timeLimit, refused: true)
    }

    private func bodyMatches(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, after since: Int64, bounds: JournalFindQuery?,
        timeLimit: Duration, refused: Bool
    ) throws -> CutBodyMatches? {
        guard pattern.source.body != nil else { return nil }
        var source = pattern.source
        source.body = nil
        let deadline = ContinuousClock.now.advanced(by: timeLimit)
        let withoutBody = JournalPatternSQL(source, deadline: deadline)
        let whole = JournalPatternSQL.leftOutWhenCut(pattern.source, deadline: deadline)
        let (boundSQL, boundBindings) = Self.boundConditions(bounds)
        let after = max(since, deletions.hiddenThrough(tenant))
        // With exactly one min() aggregate, SQLite reads the bare columns from the row of the
        // lowest id.
        let sql = "SELECT count(*), min(id), length(request_body), request_body_size FROM journal_rows "
            + "WHERE tenant = ? AND id > ? AND "
            + (refused ? Self.bodyRefused : "request_body_truncated = 1" + Self.bodyReceived) + boundSQL + withoutBody.conditions
            + (refused ? "" : whole.sql)
        let bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(after)] + boundBindings + withoutBody.bindings
            + (refused ? [] : whole.bindings)
        let found: CutBodyMatches?
        do {
            found = try reading(until: deadline, timeLimit: timeLimit, tooSlow: Self.tooSlow(.count, pattern)) { db -> CutBodyMatches? in
                guard let row = try db.query(sql, bindings).first, let count = row[0].intValue, count > 0,
                      let first = row[1].intValue else { return nil }
                return CutBodyMatches(
                    count: Int(count), firstID: first, firstKept: Int(row[2].intValue ?? 0), firstSize: Int(row[3].intValue ?? 0),
                    refused: refused)
            }
        } catch is JournalCountError {
            return nil
        }
        return found
    }
}

