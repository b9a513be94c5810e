import CatbirdSupport
import CatbirdHTTP
import CatbirdMatching
import CatbirdWire

/// What makes a mock that `update` accepts impossible to match: Catbird 0.11 accepts such
/// mocks, so they are kept (wire compatibility), but the 201 names each reason in a `warnings`
/// array and the server logs it (docs/protocol.md#control-actions; tester finding try7a F5).
enum NeverMatchingMock {
    /// One sentence per reason no request could match `pattern`, in this order: an `equal` url
    /// in none of the request-target forms (``HTTPRequest/isInATargetForm(_:method:)``, such
    /// as `api/users` without its leading `/`, or empty) or an `http` URI with no host (`http:///x`) or an
    /// invalid authority (`http://h:99999/x`), then each `equal` header value with spaces or tabs
    /// around it (matched without them, docs/matching.md#request-matching), by header
    /// name; an `equal` url in a target form holding a fragment or a space, which clients never
    /// send, is named in the url's place, and so is an empty `wildcard` (`^$`: no target is
    /// empty; an empty `regexp` matches every target, as in 0.11); a method `ANY` or `*` (compared exactly, try9a F2),
    /// or a standard method in another case (`get`, ``standardMethod(spelledOtherwiseAs:)``),
    /// before the headers; more header patterns than a request that is answered can carry
/// (``tooManyHeaders(_:subject:)``, tester finding tester21a-F9), before the
/// header values; last, one header named in two spellings with two different `equal` values
/// (``conflictingSpellings(_:subject:)``). Empty for a mock some request can match.
    /// - Parameter subject: what the sentences say no request can match: "this mock" (an
    ///   `update`), "this pattern" (a count, find or wait: tester finding tester20b-F11, they
    ///   counted 0 without a word).
    /// The warnings of a `count`, `find` or `wait` pattern: ``warnings(for:subject:)`` said of
    /// "this pattern", then ``NonASCIIURLWarning`` (tester finding tester61a-F2), then
    /// ``WildcardClassWarning`` (tester finding tester69b-F1), then ``RedactedTokenWarning``
    /// (tester finding tester65b-F1).
    static func journalPatternWarnings(for pattern: RequestPattern, admin: AdminAccess) -> [String] {
        warnings(for: pattern, subject: "this pattern")
            + [
                NonASCIIURLWarning.warning(for: pattern, subject: "this pattern"), WildcardClassWarning.warning(for: pattern, subject: "this pattern"),
                RedactedTokenWarning.warning(for: pattern, admin: admin),
            ].compactMap { $0 }
    }

    static func warnings(for pattern: RequestPattern, subject: String = "this mock") -> [String] {
        var warnings: [String] = []
        let url = pattern.url.value
        // An empty target is no request-target either (the server core calls it one, since no
        // request line can carry it; tester finding T15A-F4: `""` got a 201 with no warning).
        if pattern.url.kind == .equal, url.isEmpty || !HTTPRequest.isInATargetForm(url, method: pattern.method.rawValue) {
            // A space, tab or line break pasted before the path is dropped from the suggestion
            // (tester finding tester49a-F4: "\t/x" was told "did you mean \"/\t/x\"").
            let trimmed = String(url.drop { $0.isWhitespace || $0.unicodeScalars.allSatisfy { $0.value < 0x20 || $0.value == 0x7F } })
            let hint = "; did you mean \(JSONText.shortString(trimmed.hasPrefix("/") ? trimmed : "/" + trimmed))?"
            warnings.append(
                "'pattern.url.value' \(JSONText.shortString(url)) is an equal url that is not a request-target (it starts "
                    + "with neither '/' nor a scheme such as http://, and is not '*' or host:port for CONNECT): "
                    + "no request can match \(subject)\(hint)")
        }
        else if pattern.url.kind == .equal, let problem = HTTPRequest.httpURIAuthorityProblem(url, method: pattern.method.rawValue) {
            warnings.append(
                "'pattern.url.value' \(JSONText.shortString(url)) is an equal url that is an http URI whose authority "
                    + "\(problem.description), which is refused with 400 before matching (\(problem.rule)): no request can match \(subject)")
        }
        else if pattern.url.kind == .equal, let hint = clientsNeverSend(url, subject: subject) {
            warnings.append(hint)
        }
        else if pattern.url.kind == .wildcard, let odd = url.unicodeScalars.first(where: { $0 == " " || $0.value < 0x20 || $0.value == 0x7F }) {
            // No request-target holds a space or a control character (each is refused with 400
            // before matching), so neither can a wildcard match one (tester finding tester49a-F4).
            warnings.append(
                "'pattern.url.value' \(JSONText.shortString(url)) is a wildcard holding \(odd == " " ? "a space" : "a control character"), "
                    + "which no request-target holds (a space ends it, RFC 9112 section 3, and this server refuses a control character "
                    + "in one with 400): no request can match \(subject); write it percent-encoded (%20, %09…) as clients send it")
        }
        else if pattern.url.kind == .regexp, let slip = RegexpQuantifierSlip.slip(in: url) {
            warnings.append(quantifierSlip(url, slip, subject: subject))
        }
        else if pattern.url.kind == .wildcard, url.isEmpty {
            warnings.append(
                "'pattern.url.value' \"\" is an empty wildcard, which matches only an empty request-target (it translates to "
                    + "^$, docs/matching.md#wildcard), and no request has one: no request can match \(subject); did you mean \"*\" "
                    + "(every request) or \"/\"?")
        }
        if anyMethodSpellings.contains(pattern.method.rawValue.uppercased()) {
            warnings.append("'pattern.method' \(JSONText.shortString(pattern.method.rawValue)) \(anyMethodMeaning)")
        } else if let standard = standardMethod(spelledOtherwiseAs: pattern.method.rawValue) {
            warnings.append(
                "'pattern.method' \(JSONText.shortString(pattern.method.rawValue)) is compared exactly with the request's method, "
                    + "case included (RFC 9110 section 9.1, as in Catbird 0.11): clients send \(JSONText.shortString(standard)), "
                    + "so no usual client's request can match \(subject); did you mean \(JSONText.shortString(standard))?")
        }
        if let warning = tooManyHeaders(pattern, subject: subject) { warnings.append(warning) }
        for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) where match.kind == .equal {
            let trimmed = match.value[...].trimmingOptionalWhitespace()
            guard trimmed.utf8.count != match.value.utf8.count else { continue }
            warnings.append(
                "'pattern.headers.\(JSONText.shortText(name)).value' \(JSONText.shortString(match.value)) has spaces or tabs around it, but "
                    + "header values are matched without them: no request can match \(subject); did you mean "
                    + "\(JSONText.shortString(String(trimmed)))?")
        }
        for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) where match.kind != .equal {
            guard let side = literalSpaceAround(match) else { continue }
            warnings.append(
                "'pattern.headers.\(JSONText.shortText(name)).value' \(JSONText.shortString(match.value)) is a \(match.kind.rawValue) "
                    + "that needs a space or tab at the value's \(side), but header values are matched without the spaces and "
                    + "tabs around them: no request can match \(subject)")
        }
        warnings += conflictingSpellings(pattern, subject: subject)
        return warnings
    }

    /// Where a `wildcard` or `regexp` header value needs a space or tab that no header value
    /// has (values are matched without the spaces and tabs around them, docs/matching.md#request-matching):
    /// "start" for a wildcard that starts with one (as itself, escaped `\ `, or a class of only
    /// spaces and tabs, `[ ]`), or a regexp that starts `^` and one not made optional (`^ Bearer`,
    /// `^\tBearer`, `^\sBearer`, `^\x20`, `^[ \t]`; not `^ *Bearer`); "end" for the same at the end
    /// (a regexp's before its `$`). Nil otherwise, and for a regexp with an alternation (`|`) or
    /// free-spacing mode (`(?x`), whose spaces may not be needed (tester findings tester54b-F1:
    /// `" Bearer *"`, pasted from a log line, got a bare 201 and never matched; tester55b-F8: the
    /// escapes and classes a user writes for "a tab here" were not seen).
    static func literalSpaceAround(_ match: PatternMatch) -> String? {
        let value = match.value
        switch match.kind {
        case .wildcard:
            if spaceAtoms.wildcard.contains(where: { value.hasPrefix($0) }) { return "start" }
            if spaceAtoms.wildcard.contains(where: { value.hasSuffix($0) }) { return "end" }
        case .regexp:
            guard !value.contains("|"), !value.contains("(?x") else { return nil }
            if value.hasPrefix("^") {
                let rest = value.dropFirst()
                let quantifiers: Set<Character> = ["*", "?", "{"]
                if let atom = spaceAtoms.regexp.first(where: { rest.hasPrefix($0) }),
                    rest.dropFirst(atom.count).first.map({ !quantifiers.contains($0) }) ?? true
                {
                    return "start"
                }
            }
            if value.hasSuffix("$"), !value.hasSuffix("\\$") {
                let head = value.dropLast()
                if spaceAtoms.regexp.contains(where: { head.hasSuffix($0) }) { return "end" }
            }
        case .equal:
            break
        }
        return nil
    }

    /// The ways of writing one space or tab (and only that) that ``literalSpaceAround(_:)``
    /// knows: in a wildcard, itself, escaped, or a class of spaces and tabs; in a regexp, also
    /// `\t`, `\s`, `\x20`, `\x09`.
    private static let spaceAtoms: (wildcard: [String], regexp: [String]) = {
        let classes = ["[ ]", "[\t]", "[ \t]", "[\t ]"]
        let wildcard = [" ", "\t", "\\ ", "\\\t"] + classes
        let regexp = wildcard + ["\\t", "\\s", "\\x20", "\\x09", "[\\t]", "[ \\t]", "[\\t ]", "[\\s]"]
        return (wildcard, regexp)
    }()

    /// A regexp url whose `?` or `+` is a quantifier, so that it does not match the url it
    /// spells (``CatbirdMatching/RegexpQuantifierSlip``; tester finding tester50b-F2).
    private static func quantifierSlip(_ url: String, _ slip: (literal: String, escaped: String), subject: String) -> String {
        "'pattern.url.value' \(JSONText.shortString(url)) is a regexp, in which '?' and '+' are quantifiers ('?' makes the "
            + "character before it optional, '+' repeats it), so \(subject) does not match the url it spells, "
            + "\(JSONText.shortString(slip.literal)); did you mean \(JSONText.shortString(slip.escaped)) (a backslash before "
            + "each, written \\\\ in JSON)?"
    }

    /// One warning per header named under two spellings (`X-Token` and `x-token`) with two
    /// different `equal` values: names are case-insensitive, so both patterns test the header's
    /// first value (docs/matching.md#request-matching), which cannot equal both. Two spellings
    /// are legal otherwise, as in Catbird 0.11 (`equal "abc"` and `regexp "^a"` both match
    /// `abc`); tester finding tester23b-F2: `update` refused every such pattern with 400 while
    /// count, find, wait and remove took it.
    static func conflictingSpellings(_ pattern: RequestPattern, subject: String) -> [String] {
        var firstEqual: [String: (name: String, value: String)] = [:]
        var warnings: [String] = []
        for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) where match.kind == .equal {
            guard let earlier = firstEqual[name.asciiLowercased()] else {
                firstEqual[name.asciiLowercased()] = (name, match.value)
                continue
            }
            guard earlier.value != match.value else { continue }
            warnings.append(
                "'pattern.headers' names the header \(JSONText.shortString(earlier.name)) twice (as \(JSONText.shortString(earlier.name)) "
                    + "and \(JSONText.shortString(name))) with two different equal values (\(JSONText.shortString(earlier.value)) and "
                    + "\(JSONText.shortString(match.value))): header names are case-insensitive, so both test the header's first value, "
                    + "which cannot equal both: no request can match \(subject); keep one")
        }
        return warnings
    }

    /// The warning for a pattern whose header patterns no answerable request can carry all of:
    /// the shortest head holding them (each `Name:` with its `equal` value, trimmed, or none, and
    /// CR LF) leaves libmicrohttpd too little of its connection memory to answer in
    /// (``CatbirdHTTP/ResponseHeadRoom/canBeAnswered(fields:fieldBytes:memory:)``), so every
    /// such request is refused with 431 before matching. Nil when one can.
    static func tooManyHeaders(_ pattern: RequestPattern, subject: String) -> String? {
        let fieldBytes = pattern.headers.reduce(0) { total, header in
            let value = header.value.kind == .equal ? header.value.value[...].trimmingOptionalWhitespace().utf8.count : 0
            return total + header.key.utf8.count + 3 + value
        }
        let memory = HTTPServer.Configuration.defaultConnectionMemoryLimit
        guard !ResponseHeadRoom.canBeAnswered(fields: pattern.headers.count, fieldBytes: fieldBytes, memory: memory) else { return nil }
        return "'pattern.headers' names \(pattern.headers.count) headers, each of which a request must carry, but the shortest "
            + "request carrying them (\(fieldBytes) bytes of header fields) is refused with 431 before matching: libmicrohttpd "
            + "keeps \(ResponseHeadRoom.bytesPerEntry) bytes per field besides its bytes in its \(memory / 1024) KiB per "
            + "connection and must have \(ResponseHeadRoom.leastToAnswer) left to answer (docs/protocol.md#response-head-size): "
            + "no request can match \(subject)"
    }

    /// The standard method `method` spells in another case (`get` → `GET`, `Post` → `POST`),
    /// or nil: `method` is one exactly, or none. Methods are case-sensitive (RFC 9110 section
    /// 9.1) and clients send the standard ones in capitals, so a mock with `"method": "get"`
    /// (a JavaScript or WireMock habit) matches no usual request (tester finding T13-F10). A
    /// warning, not a refusal: `get` is a legal method token, and 0.11 accepts it.
    static func standardMethod(spelledOtherwiseAs method: String) -> String? {
        let upper = method.uppercased()
        return upper != method && standardMethods.contains(upper) ? upper : nil
    }

    /// The methods of RFC 9110 section 9 and `PATCH` (RFC 5789), as clients send them.
    static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// Methods that other mock servers read as "any method" (WireMock's `ANY`; `*`), upper-cased.
    static let anyMethodSpellings: Set<String> = ["ANY", "*"]

    /// What a method of ``anyMethodSpellings`` means here, after its name (try9a F2).
    static let anyMethodMeaning = "is compared exactly with the request's method, as every method is (Catbird 0.11's rule): "
        + "no usual client sends it, and there is no any-method form; add one mock per method (GET, POST, …)"

    /// The warning for an `equal` url in a target form that HTTP clients never send (tester
    /// finding try9a F14, both pasted from a browser or a log): a fragment (`/api/feed#top`;
    /// a client keeps `#…` to itself, RFC 9110 section 4.2.4) or a space (`?q=hello world`;
    /// clients send `%20`, a space ends the request-target, RFC 9112 section 3). This server
    /// reads a raw space or `#` into the target, so a hand-made request could still match:
    /// hence a warning, not a refusal. A tab or another control character (NUL, CR and LF are
    /// refused) is refused with 400 in every request-target, so no request matches it. Nil for
    /// other urls.
    private static func clientsNeverSend(_ url: String, subject: String) -> String? {
        if url.prefix(8).lowercased() == "https://" {
            // Pasted from a browser or Charles (tester finding try10a F19): HTTPS reaches a proxy
            // as `CONNECT host:443`, never as `GET https://…`. This server opens no tunnel: in
            // proxy mode it answers CONNECT 501, else a CONNECT is matched like any request
            // (tester finding tester23b-F4: the warning said it was refused with 501 in every mode).
            let path = url.dropFirst(8).firstIndex(of: "/").map { String(url[$0...]) } ?? "/"
            return "'pattern.url.value' \(JSONText.shortString(url)) is an https:// URL, which only a proxy-form request "
                + "could match, and clients send HTTPS through a proxy as CONNECT host:443, never as GET https://… (this "
                + "server opens no tunnel: with --proxy it answers CONNECT 501, else matches it like any request): no usual "
                + "client's request can match \(subject); did you mean \(JSONText.shortString(path)) (with the app's base URL "
                + "pointed at this server)?"
        }
        if let hash = url.firstIndex(of: "#") {
            return "'pattern.url.value' \(JSONText.shortString(url)) holds a fragment ('#...'), which HTTP clients never "
                + "send (RFC 9110 section 4.2.4): no usual client's request can match \(subject); did you mean "
                + "\(JSONText.shortString(String(url[..<hash])))?"
        }
        if let control = url.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            // Refused with 400 before matching, as a space is not (tester finding tester48a-F6:
            // a tab got no warning where a space got one).
            let byte = { (value: UInt32) in ASCIIByte.upperHex(UInt8(value)) }
            let encoded = url.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "%" + byte($0.value) : String($0) }.joined()
            return "'pattern.url.value' \(JSONText.shortString(url)) holds a control character (U+00\(byte(control.value))), "
                + "which this server refuses in a request-target with 400 before matching (RFC 9112 section 3.2): no request can match "
                + "\(subject); did you mean \(JSONText.shortString(encoded))?"
        }
        guard url.contains(" ") else { return nil }
        return "'pattern.url.value' \(JSONText.shortString(url)) holds a space, which HTTP clients send as %20 (a space "
            + "ends the request-target, RFC 9112 section 3): no usual client's request can match \(subject); did you mean "
            + "\(JSONText.shortString(url.replacingOccurrences(of: " ", with: "%20")))?"
    }
}
