import CatbirdSupport
import CatbirdWire
import Foundation
import Glibc

/// A tenant: the mocks and journal of one parallel test shard, named by the request's
/// `X-Catbird-Parallel-Id` header. Requests without the header belong to the default tenant,
/// whose id is the empty string (docs/tenancy.md#tenant-of-a-request).
///
/// Two ids are one tenant when their UTF-8 bytes are the same, as SQLite compares the `tenant`
/// columns: ``==``, ``hash(into:)`` and ``<`` compare bytes, not Swift `String`'s canonical
/// equivalence (under which `shard-\u{212A}` with KELVIN SIGN equals `shard-K`, and NFC `café`
/// equals NFD `cafe\u{301}`). Every table, queue and limit keyed by tenant in memory therefore
/// agrees with the rows in the database (docs/tenancy.md#tenant-of-a-request; Catbird 0.11 keyed
/// by `String` and made such ids one tenant: README's difference table).
public struct TenantID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The parallel id exactly as sent; `""` for the default tenant. Compare ids as
    /// ``TenantID``s (bytes), never their `rawValue`s (canonical equivalence).
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The tenant of requests that carry no `X-Catbird-Parallel-Id` header.
    public static let defaultTenant = TenantID("")

    /// The name of the header that selects the tenant.
    public static let headerName = CatbirdAction.parallelIdHeaderField

    /// The longest id, in UTF-8 bytes: 1,024. A longer parallel id is refused with 400 on any
    /// request, so every tenant can be dropped by id (`DELETE /catbird/api/tenants/{id}`: even
    /// percent-encoded whole, 3 bytes a byte, it fits the 8 KiB request-target limit);
    /// docs/tenancy.md#tenant-of-a-request.
    public static let maxLength = 1024

    /// Whether the id is within ``maxLength``.
    public var isWithinMaxLength: Bool { rawValue.utf8.count <= Self.maxLength }

    public var isDefault: Bool { rawValue.isEmpty }

    /// For reasons: `the default tenant`, or `tenant "shard-1"` (the id quoted and cut as
    /// ``JSONText/shortString(_:maxBytes:)`` cuts it), so a reason never calls the default tenant
    /// `tenant ""` (tester finding T19B-F5: a first-time user who never sent a parallel id read
    /// that as a bug).
    /// An id that Unicode's canonical composition (NFC) would change is followed by its
    /// non-ASCII code points, `tenant "shard-K" (not in NFC: U+212A)`, and one holding a code point
    /// a reader may not see (default-ignorable: a zero-width space) by those,
    /// `tenant "web-1" (holds U+200B, which may not show)`: ids are one tenant only when their bytes
    /// are the same, and such an id reads as another tenant's (tester findings tester38a-F4,
    /// tester39a-F2: a 404 naming the app's tenant read as the test's, which had the mock).
    public var named: String {
        isDefault ? "the default tenant" : "tenant \(JSONText.shortString(rawValue))\(lookAlikeNote)"
    }

    /// ` (not in NFC: U+212A, …)` for an id NFC would change, ` (holds U+200B, which may not
    /// show)` for one with code points a reader may not see (``CatbirdSupport/Swift/Unicode/Scalar/mayNotShow``:
    /// default-ignorable ones, non-ASCII spaces, DEL, C1 controls; at most 8 shown either way), ""
    /// for any other: an ASCII id without DEL is told at once, without normalising.
    public var lookAlikeNote: String {
        guard !rawValue.utf8.allSatisfy({ $0 < 0x7F }) else { return "" }
        func listed(_ points: [Unicode.Scalar]) -> String {
            let shown = points.prefix(8).map(\.codePointText)
            return shown.joined(separator: ", ") + (points.count > 8 ? ", …" : "")
        }
        if !rawValue.precomposedStringWithCanonicalMapping.hasSameBytes(as: rawValue) {
            return " (not in NFC: \(listed(rawValue.unicodeScalars.filter { !$0.isASCII })))"
        }
        // DEL and C1 controls too, which JSON writes as they are (tester finding tester58a-F7:
        // `s5<DEL>` read as `s5` in a refusal to drop it): what a log line escapes.
        let invisible = rawValue.unicodeScalars.filter(\.mayNotShow)
        return invisible.isEmpty ? "" : " (holds \(listed(Array(invisible))), which may not show)"
    }

    /// For log lines: ``logForm`` (`(default)`, a plain id as it is, any other quoted as a JSON
    /// string; docs/tenancy.md#ids-in-messages).
    public var description: String { logForm }

    /// The same UTF-8 bytes (``Swift/String/hasSameBytes(as:)``, by `memcmp`); never `String`'s
    /// `==` (canonical equivalence). Asked on every request that looks its tenant up
    /// (``MockStore``'s tables, journal waiters, admissions), several times per row on the
    /// journal writer: `elementsEqual` took about 1,500 of the worker's and writer's
    /// instructions per 404 miss of tenant `miss1` (callgrind).
    public static func == (lhs: TenantID, rhs: TenantID) -> Bool {
        lhs.rawValue.hasSameBytes(as: rhs.rawValue)
    }

    /// Hashes the UTF-8 bytes and their count (so equal ids, and only byte-equal ones, hash
    /// alike): the same work as `String`'s own hash of an ASCII text, in one call.
    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = rawValue.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in rawValue.utf8 { hasher.combine(byte) } }
        hasher.combine(rawValue.utf8.count)
    }

    /// Byte order of the UTF-8 bytes, as SQLite's `BINARY` collation orders the `tenant` columns.
    public static func < (lhs: TenantID, rhs: TenantID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}
