import CatbirdDomain
import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// Recognises a WireMock stub mapping (`{"request": …, "response": …}`, or `{"mappings": [...]}`)
/// or a MockServer expectation (`{"httpRequest": …, "httpResponse": …}`) posted to
/// `POST /catbird/api/mocks`, and writes the reason of its 400: what it is, and the Catbird
/// action for the same mock, translated by README.md's "Coming from WireMock or MockServer"
/// table (tester finding try10a F3: such a body got `unknown key "request"`, which says
/// nothing of what to send). Read only once a body failed to decode as an action.
enum ForeignStubShape {
    /// The 400's reason for `body`, or nil when it is not one of those shapes.
    /// - Parameter body: a body ``JSONBody/read(_:from:shapeHint:describe:)`` read as JSON and
    ///   refused as ``JSONBodyRefusal/undecodable(_:)``, so at most ``JSONBody/valueLimit``
    ///   values: it is parsed whole, with no limit of its own (tester finding T17-F2: this parse
    ///   of a refused 40 MB body of 20 million values held 1.4 GB for minutes).
    static func reason(for body: [UInt8]) -> String? {
        guard let translated = translation(of: body) else { return nil }
        // A key given twice: the translation read one value, WireMock and MockServer (Jackson)
        // the last (tester finding tester47a-F4: it was translated in silence).
        guard let twice = JSONTextCheck.scan(body, valueLimit: JSONBody.valueLimit).duplicateKeyReason,
              let end = translated.range(of: " (README.md#coming-from-wiremock-or-mockserver)", options: .backwards) else { return translated }
        return translated[..<end.lowerBound] + " The stub names a key twice (\(twice)): WireMock and MockServer read its last value, "
            + "this translation may have read another" + translated[end.lowerBound...]
    }

    /// ``reason(for:)`` but for a key given twice.
    private static func translation(of body: [UInt8]) -> String? {
        guard let value = JSONValue(json: Data(body)) else { return nil }
        var stub = value
        var count = 1
        if case let .array(items) = value, let first = items.first {
            stub = first
            count = items.count
        }
        // A body with Catbird's own "type" or "pattern" is an action with a mistake (`"action":
        // "update"` for "type", lead finding L19-F1: its "response" made it a WireMock stub
        // with no url): the decoder's own reason (`unknown key "action"`) says what is wrong.
        guard case let .object(members) = stub, members["type"] == nil, members["pattern"] == nil else { return nil }
        if case let .array(mappings)? = members["mappings"] {
            if let first = mappings.first, case let .object(mapping) = first { return reason(wireMock: mapping, count: mappings.count) }
            // No stub to translate (tester26b-F2: `{"mappings": []}` got `unknown key "mappings"`).
            return "this is a WireMock mappings file ({\"mappings\": […]}) with no stub mapping in it to translate, not a Catbird "
                + "action: POST /catbird/api/mocks takes {\"type\": \"update\", \"pattern\": …, \"response\": …}, one mock per "
                + "call (README.md#coming-from-wiremock-or-mockserver)"
        }
        if members["request"] != nil || members["response"] != nil { return reason(wireMock: members, count: count) }
        if members["httpRequest"] != nil || members["httpResponse"] != nil { return reason(mockServer: members, count: count) }
        return nil
    }

    /// The translation so far: the action's parts and the notes on what did not carry over.
    struct Translation {
        var method = "GET"
        /// The url pattern, nil when the stub names no url the translation reads: the action is
        /// then shown without one, and ``noURL`` says why (tester finding T18A-F2: an unknown
        /// or unsupported url key became a silent catch-all `*`).
        var url: PatternMatch?
        /// Why ``url`` is nil, a clause: `the stub has no url key (…)`.
        var noURL = ""
        var headers: [String: PatternMatch] = [:]
        var body: BodyPattern?
        var response = ResponseMock(status: 200)
        var notes: [String] = []
        /// What was carried over with another meaning than the stub's, each a clause: said
        /// apart from ``notes`` (tester finding tester58b-F8: the jsonPath `equalTo` the action
        /// holds was listed as "Not carried over").
        var differences: [String] = []

        /// Notes each key of `object` that is neither `read` nor `ignored` (keys that name or
        /// file a stub and change nothing it matches or answers), in key order, as `"key"` and
        /// its hint from `hints` when there is one.
        mutating func noteUnread(
            _ object: [String: JSONValue], read: Set<String>, ignored: Set<String> = [], hints: [String: String] = [:]
        ) {
            for key in object.keys.sorted() where !read.contains(key) && !ignored.contains(key) {
                notes.append(JSONText.string(key) + (hints[key].map { " (\($0))" } ?? ""))
            }
        }

        /// The response headers as the stub gives them, in its order, each name's values; set on
        /// ``response`` by ``setResponseHeaders()``.
        var responseFields: [(name: String, values: [String])] = []

        /// Adds the response header `name` with `values` (``setResponseHeaders()`` sets them).
        mutating func addResponseHeader(_ name: String, _ values: [String]) {
            responseFields.append((name, values))
        }

        /// Sets ``response``'s headers from ``responseFields``: the values of every spelling of
        /// one name together, in the stub's order. A list field's values (two `Set-Cookie`) go
        /// under as many spellings of its name (`SET-COOKIE`, `Set-Cookie`, `set-cookie`, …) as
        /// docs/protocol.md sends a field twice (tester finding tester46a-F9), given in the byte
        /// order of the spellings, the order the server sends a mock's headers in, so that they go
        /// out in the stub's order (tester finding tester47a-F1: the stub's own second spelling
        /// overwrote a value, and the values went out in another order). A field a response holds
        /// once (``ResponseRules/singletonFields``, `Connection`) keeps its first value, and
        /// values past the spellings a short name has are named: a Catbird response header has
        /// one value (tester finding tester25b F2: they were dropped in silence).
        mutating func setResponseHeaders() {
            var order: [String] = []
            var byName: [String: (name: String, values: [String])] = [:]
            for (name, values) in responseFields where !values.isEmpty {
                let key = name.asciiLowercased()
                if byName[key] == nil { order.append(key) }
                byName[key, default: (name, [])].values += values
            }
            for key in order {
                let (name, values) = byName[key]!
                let single = ResponseRules.singletonFields[key] != nil || key == "connection"
                let spellings = single ? [name] : Self.spellings(of: name, count: values.count).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                for (spelling, value) in zip(spellings, values) { response.headers[spelling] = value }
                if spellings.count < values.count {
                    notes.append("the values of response header \(JSONText.shortString(name)) after the first\(spellings.count > 1 ? " \(spellings.count)" : "") "
                        + "(a Catbird response header has one value; a list field's are sent under other spellings of its name)")
                }
            }
        }

        /// Up to `count` spellings of `name`: itself, all lower case, all capitals, then the
        /// lower-case name with capitals where the bits of 1, 2, 3 … are set (its first 12 letters).
        static func spellings(of name: String, count: Int) -> [String] {
            let lower = Array(name.asciiLowercased().utf8)
            let letters = lower.indices.filter { lower[$0] >= UInt8(ascii: "a") && lower[$0] <= UInt8(ascii: "z") }.prefix(12)
            var found: [String] = []
            var seen: Set<String> = []
            func offer(_ bytes: [UInt8]) {
                let spelling = String(decoding: bytes, as: UTF8.self)
                if found.count < count, seen.insert(spelling).inserted { found.append(spelling) }
            }
            offer(Array(name.utf8))
            offer(lower)
            offer(lower.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 })
            var mask = 1
            while found.count < count, mask < 1 << letters.count {
                var bytes = lower
                for (bit, index) in letters.enumerated() where mask & (1 << bit) != 0 { bytes[index] -= 32 }
                offer(bytes)
                mask += 1
            }
            return found
        }

        /// The request pattern, `url` standing in for a url not translated.
        private func pattern(url placeholder: PatternMatch) -> RequestPattern {
            RequestPattern(method: RequestPattern.HTTPMethod(rawValue: method), url: url ?? placeholder, headers: headers, body: body)
        }

        /// Takes out of the action each part `update` refuses (``MockUpdateCheck``), naming it
        /// and the refusal, so that the action shown is one the server takes (tester finding
        /// tester25b F2: a 204 with a body, a status of 700, a `Content-Length` header or a
        /// JSON path with a wildcard were shown, then refused when posted). A refused status
        /// is shown as 200, a refused method as GET, each said so.
        mutating func dropRefused() {
            let anyURL = Self.anyURL
            // Each pass takes out the part refused first; there are fewer parts than passes.
            for _ in 0..<10 {
                guard let refusal = Self.refusal(pattern(url: anyURL), response) else { return }
                let why = " (refused by update: \(refusal.reason))"
                switch refusal.field {
                case .url:
                    url = nil
                    noURL = "its url is refused by update (\(refusal.reason))"
                case .method:
                    notes.append("\"method\": \(JSONText.shortString(method))\(why); GET is shown")
                    method = "GET"
                case .headers:
                    let alone = { [headers] (name: String) in
                        (RequestPattern(method: "GET", url: anyURL, headers: headers.filter { $0.key == name }), ResponseMock(status: 200))
                    }
                    for name in Self.refusedAlone(headers.keys, alone) {
                        // Each header's own refusal (tester finding tester47a-F11: every note gave the first's).
                        notes.append("the header pattern of \(JSONText.shortString(name))\(Self.ownReason(alone(name), or: why))")
                        headers[name] = nil
                    }
                case .body:
                    notes.append("the request body matcher\(why)")
                    body = nil
                case .status:
                    notes.append("the status \(response.status)\(why); 200 is shown")
                    response.status = 200
                case .responseBody:
                    notes.append("the response body\(why)")
                    response.body = nil
                case .responseHeaders:
                    let alone = { [response] (name: String) in
                        var alone = response
                        alone.headers = response.headers.filter { $0.key == name }
                        return (RequestPattern(method: "GET", url: anyURL), alone)
                    }
                    for name in Self.refusedAlone(response.headers.keys, alone) {
                        notes.append("the response header \(JSONText.shortString(name))\(Self.ownReason(alone(name), or: why))")
                        response.headers[name] = nil
                    }
                case .delay:
                    notes.append("the delay\(why)")
                    response.delay = nil
                }
            }
        }

        /// ` (refused by update: <reason>)` for the mock `alone` (one header) when `update`
        /// refuses it on its own, else `shared` (the headers were refused together).
        private static func ownReason(_ alone: (RequestPattern, ResponseMock), or shared: String) -> String {
            guard let refusal = Self.refusal(alone.0, alone.1) else { return shared }
            return " (refused by update: \(refusal.reason))"
        }

        /// A url every check takes, standing in for the url while another part is checked.
        private static let anyURL = PatternMatch(kind: .equal, value: "/")

        /// The names in `names`, sorted, whose mock `alone(name)` (a mock with that one
        /// header) `update` refuses; all of them when none is refused alone (the headers are
        /// refused together, as for their size).
        private static func refusedAlone(
            _ names: some Sequence<String>, _ alone: (String) -> (RequestPattern, ResponseMock)
        ) -> [String] {
            let sorted = names.sorted()
            let refused = sorted.filter { name in
                let (pattern, response) = alone(name)
                return Self.refusal(pattern, response) != nil
            }
            return refused.isEmpty ? sorted : refused
        }

        /// Why `update` refuses the mock, or nil: ``MockUpdateCheck``'s refusal, else the
        /// store's compiling of the url, the header or the body pattern (a regular expression
        /// that does not compile, a JSON path SQLite does not take), as that field's refusal.
        private static func refusal(_ pattern: RequestPattern, _ response: ResponseMock) -> MockRefusal? {
            do { try MockUpdateCheck.check(pattern, response) } catch { return error }
            let parts: [(MockField, RequestPattern)] = [
                (.url, RequestPattern(method: "GET", url: pattern.url)),
                (.headers, RequestPattern(method: "GET", url: Self.anyURL, headers: pattern.headers)),
                (.body, RequestPattern(method: "GET", url: Self.anyURL, body: pattern.body)),
            ]
            for (field, part) in parts {
                do { _ = try CompiledRequestPattern(part) } catch { return MockRefusal(field, reason: error.reason, error: error) }
            }
            return nil
        }

        /// The reason: `kind` named, the action as JSON (a long response body left out; no url
        /// when none was translated, and a sentence saying so), the notes. The parts `update`
        /// would refuse are left out of the action and named (``dropRefused()``).
        func reason(_ kind: String, count: Int) -> String {
            var t = self
            t.setResponseHeaders()
            t.dropRefused()
            return t.checkedReason(kind, count: count)
        }

        /// A value longer than this is left out of the action shown, and named: 512 bytes.
        static let shownValueLimit = 512
        /// A url longer than this is left out of the action shown, and named: 2,048 bytes.
        static let shownURLLimit = 2_048
        /// Room for the notes and the url in the reason, which is cut at 8,000 bytes: 6,000.
        static let notesRoom = 6_000

        /// ``reason(_:count:)`` of a translation ``dropRefused()`` has checked.
        private func checkedReason(_ kind: String, count: Int) -> String {
            // A placeholder url, taken out of the JSON below when none was translated.
            let placeholder = PatternMatch(kind: .equal, value: "\u{0}no url")
            var pattern = pattern(url: placeholder)
            var shown = response
            var notes = notes
            // A url past the room is left out as well, and named: a 7 KB url made the action
            // pass the reason's 8,000 bytes, cut mid-JSON.
            if let long = url, long.value.utf8.count > Self.shownURLLimit {
                pattern.url = placeholder
                notes.insert("the url pattern (\(long.kind.rawValue), \(long.value.utf8.count) bytes) is left out above: add it to the "
                    + "action's pattern as \"url\": {\"kind\": \"\(long.kind.rawValue)\", \"value\": …}", at: 0)
            }
            if let bytes = response.body, bytes.count > Self.shownValueLimit {
                shown.body = nil
                notes.append("the response body (\(bytes.count) bytes) is left out above: send it as \"body\", its bytes in padded base64")
            }
            // Long pattern values are left out too, each named: the reason is cut at 8,000 bytes,
            // and a 12 KB body pattern cut the action mid-JSON and its notes with it (tester
            // finding tester47a-F7).
            if let body = pattern.body, body.value.utf8.count > Self.shownValueLimit {
                pattern.body = nil
                notes.append("the request body pattern (\(body.kind.rawValue), \(body.value.utf8.count) bytes) is left out above: add it to the "
                    + "action's pattern as \"body\": {\"kind\": \"\(body.kind.rawValue)\", \"value\": …}")
            }
            for (name, match) in pattern.headers.sorted(by: { $0.key < $1.key }) where match.value.utf8.count > Self.shownValueLimit {
                pattern.headers[name] = nil
                notes.append("the header pattern of \(JSONText.shortString(name)) (\(match.value.utf8.count) bytes) is left out above: add it "
                    + "to the action's pattern's \"headers\"")
            }
            for (name, value) in shown.headers.sorted(by: { $0.key < $1.key }) where value.utf8.count > Self.shownValueLimit {
                shown.headers[name] = nil
                notes.append("the response header \(JSONText.shortString(name)) (\(value.utf8.count) bytes) is left out above: add it to the "
                    + "action's response's \"headers\"")
            }
            // What is left is bounded but for the url and the notes: past the reason's room the
            // last notes are counted instead.
            var used = pattern.url.value.utf8.count
            if let fits = notes.firstIndex(where: { used += $0.utf8.count + 2; return used > Self.notesRoom }) {
                let kept = max(0, fits - 1)
                notes = Array(notes.prefix(kept)) + ["\(notes.count - kept) more, left out for room (post the stub's parts on their own to see them)"]
            }
            var action = Self.json(CatbirdAction.update(pattern, shown))
            var noURLSaid = ""
            if pattern.url == placeholder {
                // Keys sorted: "url" is the pattern's last member.
                if let range = action.range(of: ",\"url\":" + Self.json(placeholder), options: .backwards) { action.removeSubrange(range) }
            }
            if url == nil {
                noURLSaid = " The action has no url: \(noURL); add \"url\" to its pattern (the wildcard \"*\" answers every url "
                    + "of its method and, the first added mock winning, shadows the mocks added after it)."
            }
            let one = count > 1 ? "; Catbird takes one action per call: post each mock on its own" : ""
            let said = (differences.isEmpty ? "" : " Carried over with another meaning: " + differences.joined(separator: "; ") + ".")
                + (notes.isEmpty ? "" : " Not carried over: " + notes.joined(separator: "; ") + ".")
            // Only the first of several is translated (the reason is bounded); the others are named
            // by their count, not passed over (tester26b-F2: a mappings file's second stub and its
            // refused Content-Length went unmentioned).
            let others = count > 1
                ? " This is the first of the \(count) posted; post each of the other \(count - 1) alone for its action and what "
                    + "it does not carry over."
                : ""
            return "this is \(kind), not a Catbird action: POST /catbird/api/mocks takes {\"type\": \"update\", \"pattern\": …, "
                + "\"response\": …}\(one). The same mock as a Catbird action: \(action)\(noURLSaid)\(said)\(others) "
                + "(README.md#coming-from-wiremock-or-mockserver)"
        }

        /// `value` as compact JSON, keys sorted, slashes as they are.
        private static func json(_ value: some Encodable) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    // MARK: - Helpers

    /// The note on a stub's `priority`, WireMock's and MockServer's alike.
    static let priorityHint = "the first added mock wins here: add the mocks in the order they are to be tried"
    /// The note on query parameter matchers (WireMock's `queryParameters`, MockServer's
    /// `queryStringParameters`).
    static let queryHint = "a url pattern matches the query too: write it into the url"
    /// The note on a request's `cookies`, WireMock's and MockServer's alike.
    static let cookiesHint = "Catbird has no cookie matcher: match the Cookie header with a header pattern"

    /// A number as WireMock and MockServer read one into a numeric field (Jackson, whose scalar
    /// coercion is on by default): a JSON number, or a string of one (`"404"`, tester finding
    /// tester46a-F9: `"status": "404"` was shown as 200); nil for anything else.
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case let .number(number)?: return number
        case let .string(text)?:
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || ($0 >= 48 && $0 <= 57) }),
                  let number = Double(text), number.isFinite else { return nil }
            return number
        default: return nil
        }
    }

    /// `value` (a number from ``number(_:)`` times a unit) as an `Int`, rounded by `rule` and
    /// held to ±10^15 (a bound past every range the translation checks): `Int(1e300)` traps,
    /// and a posted stub's `"status": 1e300` ended the server (found with tester46a's findings).
    static func whole(_ value: Double, _ rule: FloatingPointRoundingRule = .towardZero) -> Int {
        let bound = 1e15
        return Int(min(bound, max(-bound, value.rounded(rule))))
    }

    /// The note for a number `whole(_:_:)` changes beyond its rounding, quoting what the stub
    /// wrote (`key`, `value`): past ±10^15, a fraction where a whole number is meant
    /// (`fractions` false), or below zero where none may be (`negative` false); nil when none
    /// applies (tester finding tester47a-F5: 200.5 was shown as 200, a limit of 2^63-1 as
    /// 10^15, and a note quoted the held number rather than the stub's).
    static func changedNumber(_ key: String, _ value: JSONValue?, _ number: Double, fractions: Bool, negative: Bool) -> String? {
        let written = value.map { JSONText.shortText($0.jsonText) } ?? "\(number)"
        if abs(number) > 1e15 || !number.isFinite { return "\(JSONText.string(key)): \(written) (past 10^15)" }
        if !fractions, number.rounded(.towardZero) != number { return "\(JSONText.string(key)): \(written) (not a whole number, cut to one)" }
        if !negative, number < 0 { return "\(JSONText.string(key)): \(written) (below zero)" }
        return nil
    }

    /// The note for a JSON body written back from its parsed value (`key` names it) when that may
    /// differ from the stub's text in more than key order and spacing: a number past 2^53 is
    /// held as a 64-bit float and may lose digits (tester finding
    /// tester47a-F3: `9007199254740993` was served as `9007199254740992.0`, in silence); nil
    /// when it holds no such number.
    static func inexactJSONBody(_ key: String, _ value: JSONValue) -> String? {
        func inexact(_ value: JSONValue) -> Bool {
            switch value {
            case let .number(number): return abs(number) >= 9_007_199_254_740_992
            case let .array(items): return items.contains(where: inexact)
            case let .object(members): return members.values.contains(where: inexact)
            default: return false
            }
        }
        guard inexact(value) else { return nil }
        return "\(JSONText.string(key)) written back from its parsed JSON: its numbers past 2^53 are 64-bit floats "
            + "there and may read other digits than the stub's, its keys sorted; send the stub's bytes as \"body\" for them exactly"
    }

    /// The note for a numeric field given something else: `"status": {"a":1} (not a number)`.
    static func notANumber(_ key: String, _ value: JSONValue) -> String {
        "\(JSONText.string(key)): \(JSONText.shortText(value.jsonText)) (not a number)"
    }

    /// A JSON value's text: a string as it is, anything else (a header value given as a number,
    /// a body as JSON) as its JSON.
    static func text(_ value: JSONValue) -> String {
        if case let .string(text) = value { return text }
        return value.jsonText
    }

    /// A MockServer string value, which MockServer matches as "plain text or regular
    /// expression", as an ICU regular expression (no anchors, no flags) matching the same:
    /// the text itself or, when it is one (it compiles), the expression, as a group.
    static func plainTextOrExpression(_ value: String) -> String {
        let literal = escaped(value)
        guard literal != value, (try? NSRegularExpression(pattern: value)) != nil else { return literal }
        return "(?:" + literal + "|" + closed(value) + ")"
    }

    /// A MockServer path, "plain text or regular expression" there, as an ICU regular
    /// expression over a target whose path it matches, a query allowed after it: the text, or
    /// when it is one the expression, kept to the path (``pathAnchored(_:)``).
    static func plainTextOrPathExpression(_ path: String) -> String {
        let literal = escaped(path)
        guard literal != path, (try? NSRegularExpression(pattern: path)) != nil else { return literal + querySuffix }
        return pathAnchored(literal + "|" + pathOnly(path))
    }

    /// What a path-only translation (WireMock's `urlPath`, `urlPathTemplate`, a MockServer
    /// path without an expression) ends with, so that a query may follow: `(\?(?s:.*))?\z`. `\z`, not `$`:
    /// ICU's `$` also matches before a last line terminator, a raw U+2028 or U+0085 ending the
    /// target (tester finding tester61a-F5); `(?s:.*)`, since `.` alone stops at one, which a
    /// query may hold raw (tester finding tester62a-F6).
    static let querySuffix = "(\\?(?s:.*))?\\z"

    /// A lookahead that holds where the position is within the path, at its end at most: what
    /// remains is some of the path and then ``pathAnchored(_:)``'s group 1, the query.
    static let withinPath = "(?=[^?]*+\\1\\z)"

    /// `body`, an expression over a path alone (``pathOnly(_:)``, or alternatives of such and
    /// of literal paths), made to match exactly the path of a target that may go on with a
    /// query: `(?=[^?]*+((?s:\?.*)?)\z)(?:body)\1\z`. The lookahead takes what follows the path
    /// (the query, or nothing) as group 1; `\1\z` after the body then holds only where the body
    /// ended at the path's end, so nothing in it (`.`, `[\s\S]`, `\X`, `\p{…}`, `\?`) can run on
    /// into the query, as WireMock and MockServer match the path alone (tester findings
    /// tester62a-F5: `/api/.*/details` answered `/api/1?next=/details`; tester63a-F5: so did
    /// what rewriting `.` as `[^?]` left, `[\s\S]` and the other escapes that match a `?`).
    static func pathAnchored(_ body: String) -> String {
        "(?=[^?]*+((?s:\\?.*)?)\\z)(?:" + body + ")\\1\\z"
    }

    /// A regular expression over a path alone (WireMock's `urlPathPattern`, a MockServer path)
    /// as the body of ``pathAnchored(_:)``, read by ``ICURegexTokens``:
    /// - each end anchor outside a class and a quote (`$`, `\z`, `\Z`), the end of the path there,
    ///   becomes `(?=\1\z)`: what follows is the query group, so the path ends here. Copied as
    ///   written, `^/api/items/[0-9]+$` anchored before the query and `/api/items/5?page=2`
    ///   found no mock (tester finding tester47a-F2);
    /// - each numbered backreference names its group plus one, ``pathAnchored(_:)``'s group
    ///   being the first (`(a)\1` becomes `(a)(?:\2)`; `(a)\12`, group 1 and a `2`, `(a)(?:\2)2`);
    /// - what each lookahead matches must end within the path: `(?=X)` becomes
    ///   `(?=(?:X)(?=[^?]*+\1\z))`, `(?!X)` likewise (tester finding tester67a-F1:
    ///   `/api/(?!.*debug).*` refused `/api/foo?debug=1`, whose path WireMock matches alone);
    /// - closed as ``closed(_:)`` closes it, so the anchor's group and suffix stay outside it.
    static func pathOnly(_ expression: String) -> String {
        let scan = ICURegexTokens(expression)
        let groups = (try? NSRegularExpression(pattern: expression))?.numberOfCaptureGroups ?? 0
        var out = ""
        for token in scan.tokens {
            switch token {
            case let .other(text), let .inClass(text, _): out += text
            case .endAnchor: out += "(?=\\1\\z)"
            case let .lookahead(text): out += text + "(?:"
            case let .lookaheadEnd(text): out += ")" + Self.withinPath + text
            case let .backreference(text):
                let (group, digits) = ICURegexTokens.groupNumber(text, groupCount: groups)
                out += "(?:\\\(group + 1))" + digits
            }
        }
        return closing(out, scan)
    }

    /// `expression`, a whole-value regular expression of a WireMock or MockServer stub, as a
    /// case-sensitive ICU expression matching the whole text: `(?-i)^(?:…)\z` (`\z`: ICU's `$`
    /// also matches before a last line terminator; tester findings tester59b-F1, tester60a-F6).
    /// - Parameter dotAll: `.` matches line terminators too (`(?s)`), as WireMock compiles every
    ///   regular expression (Java's `Pattern.DOTALL`; tester finding tester67a-F2: a body
    ///   `.*"user": *"bob".*` matched the one-line JSON, not the same JSON pretty-printed).
    static func wholeValue(_ expression: String, dotAll: Bool = false) -> String {
        (dotAll ? "(?s-i)" : "(?-i)") + "^(?:" + closed(expression) + ")\\z"
    }

    /// `expression` made safe to put text after (``ICURegexTokens``): a `\Q` quote it leaves open
    /// closed (`\E` added: Java quotes to the end of the expression, so `/a\Q$` matches `/a$`,
    /// but wrapped in the translation's group an open quote took in its `)` and suffix, and the
    /// action offered had an invalid url: tester finding tester60a-F9), and a line break added
    /// where the `x` flag is on at its end, since a `#` comment there took in the translation's
    /// `)` and suffix the same way (tester finding tester63a-F5: `(?x)/a # items`).
    static func closed(_ expression: String) -> String {
        closing(expression, ICURegexTokens(expression))
    }

    private static func closing(_ expression: String, _ scan: ICURegexTokens) -> String {
        expression + (scan.endsQuoted ? "\\E" : "") + (scan.endsExtended ? "\n" : "")
    }

    /// `literal` as an ICU regular expression matching exactly it.
    static func escaped(_ literal: String) -> String {
        var out = ""
        for character in literal {
            if "\\^$.|?*+()[]{}".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
