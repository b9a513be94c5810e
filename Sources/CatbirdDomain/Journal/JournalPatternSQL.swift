import CatbirdMatching
import CatbirdStorage
@_spi(Server) import CatbirdWire

/// A request pattern as a condition on `requests` rows, so counting and finding run in SQLite
/// (docs/matching.md#request-matching): the same rows match as with the Swift matcher.
///
/// - the method: `method = ?`; an `equal` url: `url = ?` (both served by the
///   `requests_by_tenant_method_url` index);
/// - a `wildcard` or `regexp` url or header value: `GLOB` patterns (``GlobTranslation``),
///   exact for printable-ASCII subjects and never missing an ASCII subject that matches; the
///   rest (a GLOB match with a control character, any subject with a non-ASCII character) is
///   decided by ``RequestMatchFunction`` (the Swift matcher), and so is every row when the
///   expression is outside the translated subset;
/// - a header's first value: the JSON key spelled as in the pattern, else the key equal to it
///   ignoring ASCII case (SQLite's `lower` folds ASCII only), the first element of an array
///   value; a name SQL cannot quote in a JSON path leaves the header to the Swift matcher.
///
/// Every condition written here is necessary for a match, so adding the Swift matcher's
/// verdict where needed makes the whole exact.
struct JournalPatternSQL {
    /// `AND …` terms to append to a `WHERE` over `requests`.
    private(set) var conditions = ""
    /// Values for the `?` in ``conditions``, in order.
    private(set) var bindings: [SQLiteValue] = []

    /// The printable-ASCII checks of subjects matched by GLOB: a row passing all of them (and
    /// the GLOBs) is decided by SQL alone.
    private var printableGuards: [String] = []
    /// Bindings of the subjects inside ``printableGuards``, in order.
    private var guardBindings: [SQLiteValue] = []
    /// Whether every row must also pass the Swift matcher.
    private var needsMatcher = false

    /// - Parameters:
    ///   - pattern: the request pattern.
    ///   - deadline: when calls of the Swift matcher fail the statement (nil: never).
    init(_ pattern: RequestPattern, deadline: ContinuousClock.Instant? = nil) {
        let matcher: [SQLiteValue] = [RequestMatchFunction.argument(pattern), deadline.map(RequestMatchFunction.argument) ?? .integer(0)]
        // The headers column only when the pattern reads it: without it an index holding the
        // method and url answers the whole query.
        let headersColumn = pattern.headers.isEmpty ? "NULL" : "request_headers"
        // A pattern with parts beyond the method, url and headers (a body pattern, say) is
        // matched by the Swift matcher on every row, which is then given the body too.
        let hasOtherParts = RequestPattern(method: pattern.method, url: pattern.url, headers: pattern.headers) != pattern
        let bodyColumn = hasOtherParts ? "request_body" : "NULL"
        if hasOtherParts { needsMatcher = true }
        add("method = ?", .text(pattern.method.rawValue))
        match(subject: "url", pattern.url)
        for (name, headerPattern) in pattern.headers.sorted(by: { $0.key < $1.key }) {
            guard let value = Self.firstValue(of: name) else {
                needsMatcher = true
                continue
            }
            // A cheap necessary condition first: the name appears in the JSON at all (LIKE
            // ignores ASCII case; `_` and `%` in a name only widen it).
            add("request_headers LIKE ?", .text("%\"\(name)\"%"))
            let nameBindings = [SQLiteValue](repeating: .text(name), count: 4)
            conditions += " AND \(value) IS NOT NULL"
            bindings += nameBindings
            match(subject: value, headerPattern, repeatsSubjectBindings: nameBindings)
        }
        if needsMatcher {
            conditions += " AND \(RequestMatchFunction.name)(?, ?, method, url, \(headersColumn), \(bodyColumn))"
            bindings += matcher
        } else if !printableGuards.isEmpty {
            conditions += " AND ((" + printableGuards.joined(separator: " AND ") + ") OR "
                + "\(RequestMatchFunction.name)(?, ?, method, url, \(headersColumn), \(bodyColumn)))"
            bindings += guardBindings + matcher
        }
    }

    private mutating func add(_ condition: String, _ values: SQLiteValue...) {
        conditions += " AND " + condition
        bindings += values
    }

    /// The condition on `subject` (an SQL expression) for `pattern`. A subject that is an
    /// expression with parameters repeats them (`repeatsSubjectBindings`) wherever it is
    /// written again.
    private mutating func match(subject: String, _ pattern: PatternMatch, repeatsSubjectBindings: [SQLiteValue] = []) {
        switch pattern.kind {
        case .equal:
            conditions += " AND \(subject) = ?"
            bindings += repeatsSubjectBindings + [.text(pattern.value)]
            return
        case .regexp where pattern.value.isEmpty:
            return
        case .regexp, .wildcard:
            break
        }
        let expression = pattern.kind == .wildcard
            ? WildcardTranslator.regularExpression(fromWildcard: pattern.value) : pattern.value
        guard let translation = GlobTranslation(regularExpression: expression) else {
            needsMatcher = true
            // A literal every match contains narrows the rows the matcher sees: LIKE ignores
            // ASCII case as ICU does on ASCII subjects; other subjects all go to the matcher.
            if let literal = RequiredLiteral.longest(in: expression) {
                conditions += " AND (\(subject) LIKE ? ESCAPE '\\' OR length(CAST(\(subject) AS BLOB)) <> length(\(subject)))"
                bindings += repeatsSubjectBindings + [.text("%" + Self.likeEscaped(literal) + "%")]
                    + repeatsSubjectBindings + repeatsSubjectBindings
            }
            return
        }
        // The GLOBs are exact on printable ASCII and admit every ASCII subject ICU would match,
        // so a row failing them is decided unless its subject has non-ASCII characters
        // (characters equal bytes); a row passing them is decided when the subject is
        // printable (the final term).
        conditions += " AND ("
        for (index, glob) in translation.patterns.enumerated() {
            conditions += (index == 0 ? "" : " OR ") + "\(subject) GLOB ?"
            bindings += repeatsSubjectBindings + [.text(glob)]
        }
        conditions += " OR length(CAST(\(subject) AS BLOB)) <> length(\(subject)))"
        bindings += repeatsSubjectBindings + repeatsSubjectBindings
        printableGuards.append("\(RequestMatchFunction.printableName)(\(subject))")
        guardBindings += repeatsSubjectBindings
    }

    /// `text` with LIKE's `%`, `_` and the escape character `\` escaped by `\`.
    private static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// The SQL expression (with four `?` for the name) of a header's first value in
    /// `request_headers`, or nil for a name a JSON path cannot hold.
    private static func firstValue(of name: String) -> String? {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return """
            coalesce(\
            CASE json_type(request_headers, '$."' || ? || '"') WHEN 'array' \
            THEN json_extract(request_headers, '$."' || ? || '"[0]') \
            ELSE json_extract(request_headers, '$."' || ? || '"') END, \
            (SELECT CASE WHEN h.type = 'array' THEN json_extract(h.value, '$[0]') ELSE h.value END \
            FROM json_each(requests.request_headers) AS h WHERE lower(h.key) = lower(?) LIMIT 1))
            """
    }
}
