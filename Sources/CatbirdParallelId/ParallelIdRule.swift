/// The one rule by which the test side (`CatbirdAPI`'s `Catbird`) and the app side
/// (`CatbirdAppSupport`'s `CatbirdAppConfiguration`) read a parallel id before sending it as
/// `X-Catbird-Parallel-Id`, so that both address the same tenant (tester findings T18C-F7, F8).
///
/// - nil or `""` is the default tenant (no header).
/// - Spaces, tabs and line breaks (CR, LF) at either end are not part of the id and are dropped
///   (`" shard-1 "` and `"shard-1\n"`, as read from a file, are `shard-1`). The server drops
///   spaces and tabs around a header value itself (docs/tenancy.md#tenant-of-a-request), so
///   without this the mocks went to `shard-1` while the tenant's drop by id addressed
///   `%20shard-1%20`, another tenant. Other Unicode spaces (U+00A0, U+2003, U+3000) are kept,
///   as the server keeps them: trimmed here, the same id named one tenant for the Swift
///   client and another for curl (tester finding tester44c-F6).
/// - An id that is only spaces, tabs or line breaks, or that still holds a control character (Unicode
///   category Cc: U+0000–U+001F, U+007F–U+009F) or a line or paragraph separator
///   (U+2028, U+2029) inside, is refused: no HTTP header can carry it, and the transport
///   dropped such a header without an error, so every call went to the default tenant (and
///   acted as the admin on a server without an admin token).
public enum ParallelIdRule {
    /// What the rule makes of an id.
    public enum Outcome: Equatable, Sendable {
        /// The default tenant: no header.
        case defaultTenant
        /// The id to send, trimmed.
        case tenant(String)
        /// An id no header can carry; `reason` says why, naming the id.
        case refused(reason: String)
    }

    /// `id` read by the rule.
    public static func read(_ id: String?) -> Outcome {
        guard let id, !id.isEmpty else { return .defaultTenant }
        let trimmed = trimmed(id)
        guard !trimmed.isEmpty else {
            return .refused(reason: "the parallel id \(id.debugDescription) is only spaces, tabs or line breaks; use nil or \"\" for the default tenant")
        }
        if let bad = trimmed.unicodeScalars.first(where: isForbidden) {
            return .refused(
                reason: "the parallel id \(id.debugDescription) holds the control character \(codePoint(bad)), which no "
                    + "X-Catbird-Parallel-Id header can carry (without the header every call would go to the default tenant)")
        }
        return .tenant(trimmed)
    }

    /// The id to send for `id` (nil: the default tenant); stops the process with the rule's
    /// reason when the id is refused, since no call made with it could reach its tenant.
    /// `owner` names the API the id was given to, for the message.
    public static func validated(_ id: String?, for owner: String) -> String? {
        switch read(id) {
        case .defaultTenant: return nil
        case .tenant(let tenant): return tenant
        case .refused(let reason): preconditionFailure("\(owner): \(reason)")
        }
    }

    /// `text` without spaces, tabs, CRs and LFs at either end: the server's optional whitespace
    /// (spaces and tabs), and the line breaks of an id read from a file, which no header carries.
    private static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let edge: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = scalars.firstIndex(where: { !edge($0) }), let last = scalars.lastIndex(where: { !edge($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// Whether `scalar` may not be inside an id: a control character or a line or paragraph
    /// separator.
    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// `U+000A` for a line feed.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
