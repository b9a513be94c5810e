import CatbirdSupport
import CatbirdWire

/// A count, find or wait pattern whose header value names the admin token (`X-Env: equal
/// "s3cret"` on a server started with `--admin-token s3cret`): the journal keeps the token as
/// `[redacted]` (docs/operations.md#admin-token), and the journal's patterns read the journal
/// as kept, so a request a mock of the same pattern answered is not counted (tester finding
/// tester65b-F1: `{"count":0}` and a 408 without a word). The answer says so.
enum RedactedTokenWarning {
    /// The warning for `pattern`, or nil when no header value of it holds the token where it
    /// stands on its own (``AdminAccess/redactingToken(inValue:)``), or no token is set.
    static func warning(for pattern: RequestPattern, admin: AdminAccess) -> String? {
        let named = namingToken(pattern, admin: admin)
        guard !named.isEmpty else { return nil }
        let equal = named.filter { $0.value.kind == .equal }.map {
            "\($0.key): equal \(JSONText.shortString(admin.redactingToken(inValue: $0.value.value)))"
        }
        let one = named.count == 1
        return "header pattern\(one ? "" : "s") \(named.map { $0.key }.joined(separator: ", ")) name\(one ? "s" : "") the admin token, "
            + "which the journal keeps as \(AdminAccess.redaction) wherever a request sent it (docs/operations.md#admin-token): "
            + "this pattern matches such a request only where it names \(AdminAccess.redaction) in the token's place"
            + (equal.isEmpty ? "" : " (\(equal.joined(separator: ", ")))")
    }

    /// The warning for a mock `update` whose header pattern names the admin token, or nil: the
    /// mock's pattern is shown as stored in its tenant's 404 near misses (journaled, in HAR
    /// exports) and mock listings, the default tenant's to every tenant and without the token,
    /// so the token is handed to whoever reads them; and a request that sends it is journaled
    /// with `[redacted]` in its place (tester finding tester68a-F3: the token of a shared mock's
    /// `X-Env: equal "<token>"` came back in clear in every shard's 404).
    static func mockWarning(for pattern: RequestPattern, admin: AdminAccess) -> String? {
        let named = namingToken(pattern, admin: admin)
        guard !named.isEmpty else { return nil }
        let one = named.count == 1
        return "header pattern\(one ? "" : "s") \(named.map { $0.key }.joined(separator: ", ")) name\(one ? "s" : "") the admin token: "
            + "a mock's pattern is shown as stored in its tenant's 404 near misses (and so in the journal and HAR exports) and mock "
            + "listings, the default tenant's to every tenant without the token, so whoever reads them can act as the admin; "
            + "the journal keeps the token as \(AdminAccess.redaction) wherever a request sent it (docs/operations.md#admin-token). "
            + "Match another value of that header, or a pattern that does not spell the token out"
    }

    /// `pattern`'s header patterns whose value holds the admin token where it stands on its own, by name.
    private static func namingToken(_ pattern: RequestPattern, admin: AdminAccess) -> [(key: String, value: PatternMatch)] {
        pattern.headers.sorted { $0.key < $1.key }.filter { admin.redactingToken(inValue: $0.value.value) != $0.value.value }
    }
}
