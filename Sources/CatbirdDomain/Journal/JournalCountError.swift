import CatbirdSupport
import CatbirdWire

/// Which journal search matched a pattern: `POST /catbird/api/requests/count`, `find` or
/// `wait` (docs/protocol.md#count, #find, #waiting-for-a-request).
public enum JournalSearch: String, Sendable, Equatable {
    case count, find, wait

    /// What the search did, after "too slow to": `count over this journal`, `find in this
    /// journal`, `look for in this journal for a wait`.
    var phrase: String {
        switch self {
        case .count: "count over this journal"
        case .find: "find in this journal"
        case .wait: "look for in this journal for a wait"
        }
    }
}

/// Why a journal search (``Journal/count(of:matching:timeLimit:)``, ``Journal/find(of:matching:_:timeLimit:maxSize:)``,
/// ``Journal/firstMatch(of:matching:after:timeLimit:)``) or a filtered listing stopped.
public enum JournalCountError: HTTPResponseError, CustomStringConvertible, Sendable, Equatable {
    /// Matching the journal took longer than the time limit of `milliseconds` (a regular
    /// expression with catastrophic backtracking, such as `^/(a+)+$`, or a body pattern over
    /// many large bodies): `search` is the route that matched, `pattern` the pattern it matched,
    /// whose parts that can be slow the reason names (try9a F19: a `json` body pattern's count
    /// was told to "simplify the regular expression", and a wait called itself a count).
    case tooSlow(milliseconds: Int, search: JournalSearch, pattern: RequestPattern)
    /// A filtered journal listing read the journal for longer than the time limit of
    /// `milliseconds` without filling its page (a filter that matches few of a huge journal).
    case listingTooSlow(milliseconds: Int)

    /// 400: the pattern (or the listing's filter) is at fault (a simpler one, or a narrower
    /// range, answers in time).
    public var status: Int { 400 }

    /// ``description``.
    public var reason: String { description }

    /// One readable line, fit for an HTTP 400 body: for ``tooSlow(milliseconds:search:pattern:)``
    /// `the pattern is too slow to count over this journal (stopped after 2000 ms); it matches
    /// the body pattern "json" on each journaled body: narrow it with an equal url so fewer
    /// bodies are read`.
    public var description: String {
        switch self {
        case let .tooSlow(milliseconds, search, pattern):
            return "the pattern is too slow to \(search.phrase) (stopped after \(milliseconds) ms); "
                + Self.advice(for: pattern)
        case .listingTooSlow(let milliseconds):
            return "the listing's filters matched too few of this journal's entries to fill a page within \(milliseconds) ms "
                + "(stopped); list a narrower range with 'since' or 'before', or a smaller 'limit'"
        }
    }

    /// What in `pattern` may take long on each journaled request, and what to do about it.
    static func advice(for pattern: RequestPattern) -> String {
        var regexps: [String] = []
        if pattern.url.kind == .regexp { regexps.append("the url's") }
        for name in pattern.headers.keys.sorted() where pattern.headers[name]?.kind == .regexp {
            regexps.append("the header \(JSONText.string(name))'s")
        }
        if pattern.body?.kind == .regexp { regexps.append("the body's") }
        var parts: [String] = []
        if !regexps.isEmpty {
            parts.append("simplify the regular expression (\(regexps.joined(separator: ", ")))")
        }
        if let body = pattern.body, body.kind != .regexp {
            parts.append(
                "it matches the body pattern \(JSONText.string(body.kind.rawValue)) on each journaled body: "
                    + "narrow it with an equal url so fewer bodies are read")
        }
        // The method is always compared on the index (a pattern names one); an equal url is the
        // one other part that is (tester finding tester30c-F7: "narrow it by method" to a
        // pattern that named its method).
        if parts.isEmpty { parts.append("an equal url is compared on the index, any other url on each journaled request of the method: narrow it with an equal url") }
        return parts.joined(separator: "; ")
    }
}
