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
        let named = pattern.headers.sorted { $0.key < $1.key }.filter { admin.redactingToken(inValue: $0.value.value) != $0.value.value }
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
}
