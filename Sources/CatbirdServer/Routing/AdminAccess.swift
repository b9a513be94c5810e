import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// Who may use the cross-tenant routes (list every tenant, drop another tenant or all of them,
/// remove every tenant's mocks): the rule of docs/tenancy.md#admin.
///
/// - Without an admin token (`--admin-token` / `CATBIRD_ADMIN_TOKEN` unset) a request without
///   `X-Catbird-Parallel-Id` is the admin, as in Catbird 0.11's single-user world.
/// - With a token, only a request carrying `Authorization: Bearer <token>` is the admin; one
///   without a parallel id is then an ordinary client of the default tenant.
///
/// The token is compared in time that depends on the length of what was sent, never on how
/// much of it matches; it is never journaled, in any header field (``redactingToken(in:)``), nor logged.
struct AdminAccess: Sendable {
    /// The token's bytes; nil when none is configured.
    private let token: [UInt8]?

    /// - Parameter token: the admin token; nil or empty means none.
    init(token: String?) {
        self.token = token.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    var requiresToken: Bool { token != nil }

    /// Whether `request` (of `tenant`) may use the cross-tenant routes.
    func isAdmin(_ request: HTTPRequest, tenant: TenantID) -> Bool {
        guard token != nil else { return tenant.isDefault }
        return request.headers.fields.contains { $0.name.equalsIgnoringASCIICase("Authorization") && carriesToken($0.value) }
    }

    /// The refusal of a cross-tenant action to a caller that is not the admin: 401 asking for
    /// the token when one is configured, else 403 saying who the admin is (a call without
    /// `X-Catbird-Parallel-Id` on a trusted host, or one with the admin token;
    /// docs/tenancy.md#admin). It does not tell the shard to drop its header: a test helper
    /// told so became the admin of every shard on a server without a token (tester finding T19B-F17).
    /// - Parameter action: what was refused, e.g. "dropping every tenant".
    /// - Parameter request: the refused request, whose `Authorization` the 401 describes
    ///   (``tokenProblem(in:)``).
    func refusal(_ action: String, tenant: TenantID, request: HTTPRequest? = nil) -> APIError {
        if requiresToken {
            return .unauthorized(
                "\(action) is an admin action: send Authorization: Bearer <admin token> (the server's --admin-token)"
                    + tokenProblem(in: request))
        }
        return .forbidden(
            "\(action) is an admin action, and a shard (\(TenantID.headerName): \(JSONText.shortString(tenant.rawValue))\(tenant.lookAlikeNote)) "
                + "may act on only its own tenant; "
                + "the admin (a call without \(TenantID.headerName) on a trusted host, or with the admin token) does that "
                + "(docs/tenancy.md#admin)")
    }

    /// The 401 for a change of the default tenant's mocks (`update`, `remove`, `removeAll`
    /// without a parallel id) by a caller that is not the admin, when a token is configured; nil
    /// otherwise. The default tenant's mocks are the shared fixtures every shard falls back to
    /// (docs/tenancy.md#default-tenant), so with a token they are the admin's to change: a shard
    /// whose id variable was unset (it then sends no header) wiped or hijacked every shard's
    /// fallbacks (tester finding try9b F5). Without a token a caller without a parallel id is
    /// the admin anyway.
    func sharedFixturesRefusal(tenant: TenantID, isAdmin: Bool, request: HTTPRequest? = nil) -> APIError? {
        sharedDefaultRefusal(
            "changing the default tenant's mocks (the shared fixtures every shard falls back to)", yours: "change your own tenant's mocks",
            tenant: tenant, isAdmin: isAdmin, request: request)
    }

    /// The 401 for clearing the default tenant's journal (`DELETE /catbird/api/requests` without
    /// a parallel id) by a caller that is not the admin, when a token is configured; nil
    /// otherwise. That journal is shared as the default mocks are: it holds the requests of every
    /// app that lost its parallel id, which the 404's hints point every shard to, so a tear-down
    /// whose `$SHARD` was unset wiped it for everyone while its `removeAll` was refused (tester
    /// finding T14B-F9). Reading it needs no token.
    func sharedJournalRefusal(tenant: TenantID, isAdmin: Bool, request: HTTPRequest? = nil) -> APIError? {
        sharedDefaultRefusal(
            "clearing the default tenant's journal (the requests of every client without a parallel id)",
            yours: "clear your own tenant's journal", tenant: tenant, isAdmin: isAdmin, request: request)
    }

    /// The 401 of a change of what the default tenant shares with every shard (`action`) by a
    /// caller that is not the admin, on a server with a token; nil otherwise. The reason says
    /// how to do it as the admin, or with a parallel id as `yours` (docs/tenancy.md#default-tenant).
    private func sharedDefaultRefusal(_ action: String, yours: String, tenant: TenantID, isAdmin: Bool, request: HTTPRequest?) -> APIError? {
        guard requiresToken, tenant.isDefault, !isAdmin else { return nil }
        return .unauthorized(
            "\(action) is an admin action on a server with an admin token: send Authorization: Bearer <admin token>, or send your "
                + "\(TenantID.headerName) to \(yours) (docs/tenancy.md#default-tenant)" + tokenProblem(in: request))
    }

    /// What was wrong with `request`'s credentials, for a 401 (tester finding try10a F14: a
    /// missing token, one without `Bearer `, and a wrong one got the same words, which told a
    /// user who believed they sent the token nothing): `; this request sent no Authorization
    /// field` and so on; the token is never shown. Empty without a request.
    private func tokenProblem(in request: HTTPRequest?) -> String {
        guard let request else { return "" }
        let values = request.headers.fields.filter { $0.name.equalsIgnoringASCIICase("Authorization") }.map(\.value)
        guard !values.isEmpty else { return "; this request sent no Authorization field" }
        guard values.contains(where: { Self.bearerCredential(of: $0) != nil }) else {
            return "; this request's Authorization is not of the form 'Bearer <token>' (the word Bearer and a space come first)"
        }
        return "; the Bearer token this request sent is not this server's admin token (an old token, or a stray space or "
            + "character in the value?)"
    }

    /// `fields` with every occurrence of the admin token in any field's value replaced by
    /// `[redacted]`: what the journal stores for a request's headers (docs/operations.md#admin-token).
    /// `Authorization: Bearer <token>` becomes `Bearer [redacted]`; so do the token in
    /// `Proxy-Authorization`, after another scheme (`Token <token>`), quoted, or followed by `;`
    /// or `, Basic …` (tester finding T14B-F4: only the exact `Bearer <token>` value was
    /// replaced, and any client read the others back from the default tenant's journal).
    /// Only an occurrence standing on its own counts (``standaloneOffset(of:in:from:)``): with
    /// `--admin-token app`, `application/json` stays as it was (re-read: every occurrence was
    /// replaced, so a short token garbled every journaled value holding its letters, and header
    /// patterns of count and find stopped matching).
    /// Without a token `fields` is returned as it is; with one, values that do not hold it are
    /// searched (``ByteSearch``) but not copied, and `fields` is returned without allocating.
    func redactingToken(in fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        guard let token, fields.contains(where: { Self.standaloneOffset(of: token, in: $0.value) != nil }) else { return fields }
        return fields.map { field in
            guard Self.standaloneOffset(of: token, in: field.value) != nil else { return field }
            return (name: field.name, value: Self.replacing(token, in: field.value, with: Self.redaction))
        }
    }

    /// `value` (one request header field's) with the admin token redacted as
    /// ``redactingToken(in:)-([(name:String,value:String)])`` does: what a 404's near misses and
    /// reason show as the field's `actual` value (re-read: a request carrying the token that
    /// missed a mock with a pattern on that field had `got "Bearer <token>"` in the 404 body, its
    /// journaled copy and the info log line). Without a token, or without it in `value`: `value`.
    func redactingToken(inValue value: String) -> String {
        guard let token, Self.standaloneOffset(of: token, in: value) != nil else { return value }
        return Self.replacing(token, in: value, with: Self.redaction)
    }

    /// Whether `byte` is an ASCII letter or digit: a token occurrence with one right before or
    /// after it (where the token's own first or last byte is one) is part of a longer word.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }

    /// The offset in bytes of the first occurrence of `needle` in `haystack` at or after `start`
    /// that stands on its own, as a regular expression's `\b` would say: where the needle begins
    /// with a letter or digit, none right before it; where it ends with one, none right after.
    /// So `app` is found in `app`, `app.local` and `t=app;`, not in `application/json`.
    private static func standaloneOffset(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, let last = needle.last else { return nil }
        let bounded = (start: isWordByte(first), end: isWordByte(last))
        var from = start
        while let found = ByteSearch.firstOffset(of: needle, in: haystack, from: from) {
            let end = found + needle.count
            let startsWord = !bounded.start || found == 0 || !isWordByte(haystack[found - 1])
            let endsWord = !bounded.end || end == haystack.count || !isWordByte(haystack[end])
            if startsWord && endsWord { return found }
            from = found + 1
        }
        return nil
    }

    /// ``standaloneOffset(of:in:from:)`` in `value`'s UTF-8 from its start; reads the string's
    /// own storage (no copy of a native string).
    private static func standaloneOffset(of needle: [UInt8], in value: String) -> Int? {
        var value = value
        return value.withUTF8 { haystack in
            needle.withUnsafeBytes { standaloneOffset(of: $0, in: UnsafeRawBufferPointer(haystack), from: 0) }
        }
    }

    /// What stands for the token in a journaled value.
    static let redaction = "[redacted]"

    /// `value` with every non-overlapping occurrence of `needle` that stands on its own
    /// (``standaloneOffset(of:in:from:)``, searched from the start) replaced by `replacement`.
    private static func replacing(_ needle: [UInt8], in value: String, with replacement: String) -> String {
        let bytes = Array(value.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                while let found = standaloneOffset(of: needle, in: haystack, from: copied) {
                    result += bytes[copied..<found]
                    result += replacement.utf8
                    copied = found + needle.count
                }
            }
        }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// `fields` without any `Authorization` field that carries the admin token: what redirect,
    /// proxy and record modes send upstream. The token is Catbird's own credential, never the
    /// app's, so it must not reach a third-party API (tester finding try9b F8: a harness that
    /// set it as its session's default header sent it to the `--redirect-url` upstream, whose
    /// echo then came back unredacted in the journal and in recorded files).
    ///
    /// One field holding the token beside other credentials, as a comma-separated list
    /// (`Authorization: Bearer <token>, Basic eA==`, what URLSession's `addValue` or fetch's
    /// `Headers.append` make of a harness default and the app's own credential; tester finding
    /// T14-F3), goes without the element that carries the token (`Authorization: Basic eA==`);
    /// a field left with nothing is dropped. Likewise `Proxy-Authorization`, though it is
    /// hop-by-hop and never forwarded anyway (``OutboundRequest/endToEnd(_:)``).
    func removingToken(from fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        guard token != nil else { return fields }
        return fields.compactMap { field in
            var value = field.value
            if field.name.equalsIgnoringASCIICase("Authorization") || field.name.equalsIgnoringASCIICase("Proxy-Authorization") {
                guard let rest = withoutToken(value) else { return nil }
                value = rest
            }
            // Anywhere else (`Token <token>`, `X-Debug: <token>`), the token goes as the
            // journal has it, `[redacted]` (re-read: only `Bearer <token>` was held back).
            return (name: field.name, value: redactingToken(inValue: value))
        }
    }

    /// An `Authorization` value without its list elements that carry the admin token
    /// (``carriesToken(_:)``), the others trimmed and joined by `, `; the value unchanged when none
    /// does, nil when nothing is left. A token may hold commas: an element is tried with as many
    /// of the following ones as the token has commas.
    private func withoutToken(_ value: String) -> String? {
        guard let token else { return value }
        let elements = value.split(separator: ",", omittingEmptySubsequences: false)
        let span = token.count(where: { $0 == UInt8(ascii: ",") }) + 1
        var kept: [Substring] = []
        var removed = false
        var index = 0
        while index < elements.count {
            let end = min(index + span, elements.count)
            let candidate = Substring(elements[index..<end].joined(separator: ","))
            if end - index == span, carriesToken(String(candidate.trimmingOptionalWhitespace())) {
                removed = true
                index = end
            } else {
                kept.append(elements[index])
                index += 1
            }
        }
        guard removed else { return value }
        let rest = kept.map { $0.trimmingOptionalWhitespace() }.filter { !$0.isEmpty }
        return rest.isEmpty ? nil : rest.joined(separator: ", ")
    }

    /// Whether an `Authorization` value is `Bearer <token>` (``bearerCredential(of:)``; token
    /// compared byte for byte in constant time for a given length sent).
    private func carriesToken(_ value: String) -> Bool {
        guard let token, let given = Self.bearerCredential(of: value) else { return false }
        var difference: UInt8 = given.count == token.count ? 0 : 1
        for (offset, byte) in given.enumerated() {
            difference |= byte ^ token[offset % token.count]
        }
        return difference == 0
    }

    /// The credential of an `Authorization` value of the form `Bearer <credential>` (scheme
    /// case-insensitive, RFC 9110 §11.1; spaces after the first one skipped), possibly empty;
    /// nil when the value does not start with the word Bearer and a space. The one reading of
    /// the field, for the admin check and for the 401's words (``tokenProblem(in:)``).
    private static func bearerCredential(of value: String) -> ArraySlice<UInt8>? {
        let bytes = Array(value.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == 0x20,
              zip(bytes, scheme).allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }) else { return nil }
        return bytes[(scheme.count + 1)...].drop { $0 == 0x20 }
    }
}
