import CatbirdDomain
import CatbirdMatching
import CatbirdSupport

/// The 404 reason's hints for slips a near miss shows but does not explain (docs/matching.md#near-misses;
/// tester finding try8a F2), after the closest mock's summary, each for the first of the near
/// misses (at most ``MockStore/nearMissLimit``) it fits, then of the report's
/// ``CatbirdDomain/NearMissReport/slips`` (mocks outside the near misses: a `get` mock at
/// distance 1 behind three unrelated urls, tester finding tester21a-F4), so a mock that does
/// not rank first is still pointed at:
///
/// - a method that differs only in case (`"method": "get"`, a WireMock or JavaScript habit), the
///   rest of the mock matching: `mock 88's method "get" differs from the request's "GET" only in
///   case: methods are compared case-sensitively, as sent (RFC 9110 section 9.1), so write "GET"`;
/// - an `equal` url with the request's query parameters in another order, or with some of them
///   only (``queryExtra(_:target:)``: a cache-buster the app adds);
/// - an `equal` url that is the target with a query's space written `+` for `%20` or the other
///   way, or in other letter case (``querySpace(_:target:)``, ``urlCase(_:target:)``);
/// - an `equal` url that is the path of a proxy-form (absolute-form) request, which is matched
///   on its absolute URL, as in Catbird 0.11; or an absolute `equal` url against an origin-form
///   request with that path;
/// - an `equal` url that is the request's path without its query, or that differs from it only
///   in a trailing `/` (``urlSlip(_:target:)``: WireMock's `urlPath` habit, try9a F6);
/// - a method `ANY` or `*`, which is compared exactly as any other (``anyMethod(_:)``, try9a F2);
/// - a `regexp` url that spells the target but reads its query's `?` as a quantifier
///   (``quantifierSlip(_:target:)``, tester50b-F2).
///
/// Each check looks at a near miss's method and url texts only (no matching), read in place
/// (``Mock/patternURL``, ``Mock/patternMethod``: no copy of a compiled pattern), and most stop at
/// their first comparison; the query check is skipped for a target without a `?` byte. Every
/// 404 with near misses runs them: counted with callgrind, about 19,000 instructions of a
/// one-mock tenant's miss when each check copied the mock's compiled pattern and searched the
/// target for `?` by `Character`.
enum NearMissHints {
    /// The hints for `report`'s near misses of `method` `target`, in the order above; empty
    /// when none fits.
    static func hints(_ report: NearMissReport, method: String, target: String) -> [String] {
        var hints: [String] = []
        if let hint = first(of: report, { methodCase($0, distance: $1, method: method) }) {
            hints.append(hint)
        } else if let hint = first(of: report, skippingClosest: 1, { otherMethod($0, distance: $1, method: method) }) {
            hints.append(hint)
        }
        // A target without a `?` byte has no `?` character: no url can hold its query in another
        // order. Its bytes read in place, not through the generic `String.UTF8View` iterator.
        var bytes = target
        let hasQuery = bytes.withUTF8 { $0.contains(UInt8(ascii: "?")) }
        if hasQuery, let hint = first(of: report, { mock, _ in queryOrder(mock, target: target) }) { hints.append(hint) }
        if hasQuery, let hint = first(of: report, { mock, _ in queryExtra(mock, target: target) }) { hints.append(hint) }
        if hasQuery, let hint = first(of: report, { mock, _ in querySpace(mock, target: target) }) { hints.append(hint) }
        if let hint = first(of: report, { mock, _ in urlCase(mock, target: target) }) { hints.append(hint) }
        if let hint = first(of: report, { mock, _ in requestForm(mock, target: target) }) { hints.append(hint) }
        if let hint = first(of: report, { mock, _ in urlSlip(mock, target: target) }) { hints.append(hint) }
        if let hint = first(of: report, { anyMethod($0, distance: $1) }) { hints.append(hint) }
        // Only a target with a query can be spelled by a regexp whose `?` starts one.
        if hasQuery, let hint = first(of: report, { mock, _ in quantifierSlip(mock, target: target) }) { hints.append(hint) }
        return hints
    }

    /// The first hint `check` gives for a near miss of `report`, in their order, then for one of
    /// its slips; `check` gets the mock and its distance (nil: a slip found by its url, not compared).
    private static func first(
        of report: NearMissReport, skippingClosest skipped: Int = 0, _ check: (Mock, Double?) -> String?
    ) -> String? {
        // By index: a copy of a near miss (its mock and comparison) retains their references.
        for index in report.closest.indices.dropFirst(skipped) {
            if let hint = check(report.closest[index].mock, report.closest[index].distance) { return hint }
        }
        for index in report.slips.indices {
            if let hint = check(report.slips[index].mock, report.slips[index].distance) { return hint }
        }
        return nil
    }

    /// The method hint when `mock`, a near miss at `distance`, differs from the request in its
    /// method's case alone (its distance is the method's 1: every other field matches).
    private static func methodCase(_ mock: Mock, distance: Double?, method: String) -> String? {
        guard distance == 1 else { return nil }
        let expected = mock.patternMethod
        guard expected != method, expected.equalsIgnoringASCIICase(method) else { return nil }
        return "mock \(mock.id)'s method \(JSONText.shortString(expected)) differs from the request's "
            + "\(JSONText.shortString(method)) only in case: methods are compared case-sensitively, as sent (RFC 9110 "
            + "section 9.1), so write \(JSONText.shortString(method))"
    }

    /// The method hint for `mock`, a near miss at `distance`, that matches the request in
    /// everything but its method (asked for the near misses after the closest, whose summary
    /// says it already, and the slips): `mock 87 (PATCH
    /// equal "/api/profile") matches the request in everything but its method: the request is
    /// PUT`. A method of another case or `ANY` has hints of its own. Tester finding
    /// tester42a-F6: such a mock ranks at distance 1, behind every mock of the request's method
    /// (a url differs by at most 1), so an app's PUT where the backend takes PATCH was sent to
    /// an unrelated url's mock, and nothing named the one meant.
    private static func otherMethod(_ mock: Mock, distance: Double?, method: String) -> String? {
        guard distance == 1 else { return nil }
        let expected = mock.patternMethod
        guard expected != method, !expected.equalsIgnoringASCIICase(method),
              !NeverMatchingMock.anyMethodSpellings.contains(expected.uppercased()) else { return nil }
        let url = mock.patternURL
        return "mock \(mock.id) (\(expected) \(url.kind.rawValue) \(JSONText.shortString(url.value))) matches the request in "
            + "everything but its method: the request is \(JSONText.shortString(method)), the mock's \(JSONText.shortString(expected))"
    }

    /// The hint when `mock`'s `regexp` url spells the target (a leading `^` and trailing `$`
    /// aside) but does not match it, its `?` or `+` being quantifiers
    /// (``CatbirdMatching/RegexpQuantifierSlip``; tester finding tester50b-F2: the reason read
    /// `expected regexp "/search?q=swift", got "/search?q=swift"`). Compiled only for such a
    /// mock: most 404s stop at the comparison of texts.
    private static func quantifierSlip(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard url.kind == .regexp, url.value.utf8.count - target.utf8.count <= 2, url.value.utf8.count >= target.utf8.count else { return nil }
        guard RegexpQuantifierSlip.literal(of: url.value) == target, let slip = RegexpQuantifierSlip.slip(in: url.value) else { return nil }
        return "mock \(mock.id)'s regexp \(JSONText.shortString(url.value)) reads '?' and '+' as quantifiers, so it does not match "
            + "the url it spells, \(JSONText.shortString(slip.literal)): write \(JSONText.shortString(slip.escaped))"
    }

    /// The query hint when `mock`'s url is `equal` to the target but for the order of its
    /// query's `&`-separated parameters (the same ones, as many times each).
    private static func queryOrder(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard url.kind == .equal, url.value != target, let query = target.firstIndex(of: "?"),
              let expectedQuery = url.value.firstIndex(of: "?"), url.value[..<expectedQuery] == target[..<query],
              parameters(url.value[expectedQuery...]) == parameters(target[query...]) else { return nil }
        return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) has the request's query parameters in another "
            + "order: equal compares the request-target as sent, so write them in the app's order, \(JSONText.shortString(target))"
    }

    /// The hint when `mock`'s `equal` url has the request's path and some of its query parameters,
    /// and the request adds others (tester finding tester63b-F5: a cache-buster `&t=123` got
    /// only "url differs"): `mock 4's url "/api/feed?page=1" has the request's path and query
    /// parameters but "t=123", which the request adds: equal compares the whole request-target;
    /// write a wildcard for the added ones, "/api/feed\\?page=1&t=*"` (each added parameter's
    /// value as `*`, wildcard characters of the rest escaped; in the request's order).
    private static func queryExtra(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard url.kind == .equal, let query = target.firstIndex(of: "?"), let expectedQuery = url.value.firstIndex(of: "?"),
              url.value[..<expectedQuery] == target[..<query] else { return nil }
        var wanted = parameters(url.value[expectedQuery...])
        var added: [Substring] = []
        for parameter in target[query...].dropFirst().split(separator: "&", omittingEmptySubsequences: false) {
            if let index = wanted.firstIndex(of: parameter) { wanted.remove(at: index) } else { added.append(parameter) }
        }
        guard wanted.isEmpty, !added.isEmpty else { return nil }
        var wildcard = escapedForWildcard(target[..<query]) + "\\?"
        for (index, parameter) in target[query...].dropFirst().split(separator: "&", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { wildcard += "&" }
            if added.contains(parameter), let equals = parameter.firstIndex(of: "=") {
                wildcard += escapedForWildcard(parameter[...equals]) + "*"
            } else {
                wildcard += escapedForWildcard(parameter)
            }
        }
        let shown = added.prefix(3).map { JSONText.shortString(String($0)) }.joined(separator: ", ") + (added.count > 3 ? ", …" : "")
        return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) has the request's path and query parameters but \(shown), "
            + "which the request adds: equal compares the whole request-target; write a wildcard for the added ones, "
            + "\(JSONText.shortString(wildcard))"
    }

    /// `text` with the characters a wildcard reads as its own (`*`, `?`, `[`, `]`, `{`, `}`, `\\`) escaped.
    private static func escapedForWildcard(_ text: Substring) -> String {
        var out = ""
        for character in text {
            if "*?[]{}\\".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A query's parameters (after its `?`), sorted: equal for the same ones in any order.
    private static func parameters(_ query: Substring) -> [Substring] {
        query.dropFirst().split(separator: "&", omittingEmptySubsequences: false).sorted()
    }

    /// The request-form hint when `mock`'s `equal` url is the target in the other form: the
    /// path (and query) of a proxy-form target, or an absolute URL whose path is the
    /// origin-form target.
    private static func requestForm(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard url.kind == .equal, url.value != target else { return nil }
        let targetIsAbsolute = target.utf8.first != UInt8(ascii: "/")
        let urlIsAbsolute = url.value.utf8.first != UInt8(ascii: "/")
        guard targetIsAbsolute != urlIsAbsolute else { return nil }
        if targetIsAbsolute {
            guard let path = CatbirdHandler.originForm(of: target), path == url.value else { return nil }
            return "the request is in proxy form (an absolute URL, as a client sends to an HTTP proxy), which is matched on "
                + "its absolute URL, as in Catbird 0.11: mock \(mock.id)'s url \(JSONText.shortString(url.value)) is its path; "
                + "write \(JSONText.shortString(target)), or a wildcard \(JSONText.shortString("*" + path))"
        }
        guard let path = CatbirdHandler.originForm(of: url.value), path == target else { return nil }
        return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) is an absolute URL, which only a proxy-form request "
            + "matches; the request came in origin form, its path alone: write \(JSONText.shortString(target)), or a wildcard "
            + "\(JSONText.shortString("*" + target))"
    }
}
