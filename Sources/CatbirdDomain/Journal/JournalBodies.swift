import CatbirdStorage
import CatbirdSupport
import Glibc

/// The journal writer's memory of recent response bodies, so that a body a tenant's rows repeat
/// is stored once in `journal_bodies` and pointed at by `journal_rows.response_body_id`
/// (migrations/0010_requests_response_bodies_once.sql; docs/schema.md#tables).
///
/// The first time a body is seen its row holds it, as before; from the second time on, the body
/// is in `journal_bodies` (inserted then) and each row points at it, its `refs` counting them
/// (the table's delete trigger releases them). A body Catbird wrote itself (`answered_by` =
/// `none`: the 404 with its near misses, which repeats the request's url in its reason and in
/// each near miss) is compared and stored with every occurrence of the row's url replaced by the
/// byte 0x01 (`url_marked`), so 404s of different urls with the same closest mocks share one
/// body; a body holding a raw 0x01 byte is never marked. The `requests` view puts the url back
/// (`replace`), so every reader gets the same bytes as the app received. A tenant's last few
/// marked bodies are tried first, piece by piece, and a row may point at one whenever its url
/// put back gives the row's body (even where that body holds its url once more, unmarked).
///
/// Only the writer thread uses it, inside the transaction that writes the rows: an id it
/// remembers is checked by the `UPDATE` that counts the new reference (a body deleted since,
/// by a journal clear, tenant drop or retention, is forgotten; ids are never reused), and a
/// failed transaction must be followed by ``removeAll()`` (its ids may be rolled back).
struct JournalBodies {
    /// Bodies shorter than this many bytes stay in their rows: 256 (a reference and the refs
    /// update would cost about as much as the bytes).
    static let minimumSize = 256
    /// Bodies remembered at most (all forgotten when reached): 256.
    static let maxRemembered = 256
    /// Bytes of bodies remembered at most (all forgotten when reached): 8 MiB.
    static let maxRememberedBytes = 8 << 20

    /// A body's identity for a first look: its tenant, its length and its first and last 8 bytes;
    /// equal keys are then compared byte for byte.
    private struct Key: Hashable {
        var tenant: TenantID
        var count: Int
        var head: UInt64
        var tail: UInt64
        var marked: Bool
    }

    /// A remembered body; `id` nil while only the row that first had it holds it.
    private final class Known {
        let bytes: [UInt8]
        var id: Int64?
        /// Where the url markers (0x01) of a url-marked body are, ascending; empty otherwise.
        let markers: [Int]
        init(bytes: [UInt8], marked: Bool) {
            self.bytes = bytes
            markers = marked ? bytes.indices.filter { bytes[$0] == 1 } : []
        }
    }

    private var known: [Key: [Known]] = [:]
    /// Each tenant's url-marked bodies last stored or found (of `known`'s), the latest first,
    /// at most ``recentMarked``: the 404s of a tenant's new urls mostly repeat one of a few
    /// (one per set of closest mocks), and comparing with one piece by piece
    /// (``isBody(_:url:of:)``, most fail at their length) is one pass over the body, with
    /// neither the search for the url nor the marked copy that looking it up by
    /// ``marked(_:url:)`` costs.
    private var lastMarked: [TenantID: [Known]] = [:]
    /// Marked bodies kept per tenant in `lastMarked`: 4.
    static let recentMarked = 4
    private var rememberedCount = 0
    private var rememberedBytes = 0

    /// Forgets every body (after a failed transaction, whose inserted ids were rolled back).
    mutating func removeAll() {
        known.removeAll()
        lastMarked.removeAll()
        rememberedCount = 0
        rememberedBytes = 0
    }

    /// The `journal_bodies` id each entry's row points at, or nil where the row holds its own
    /// body; inserts the bodies seen for the second time and counts every new reference.
    /// Runs inside the caller's transaction, before the rows are inserted.
    /// - Parameter insertedBytes: increased by the bytes of each body inserted.
    /// - Throws: `SQLiteError`.
    mutating func assign(_ entries: UnsafeBufferPointer<JournalEntry>, _ db: Database, insertedBytes: inout Int) throws -> [Int64?] {
        var ids = [Int64?](repeating: nil, count: entries.count)
        // The remembered bodies rows of this batch can point at, in order of first use, each
        // with those rows: its references are then counted by one statement.
        var found: [(body: Known, rows: [Int])] = []
        var place: [ObjectIdentifier: Int] = [:]
        for index in entries.indices where entries[index].responseBody.count >= Self.minimumSize {
            guard let body = find(entries[index]) else { continue }
            if let at = place[ObjectIdentifier(body)] {
                found[at].rows.append(index)
            } else {
                place[ObjectIdentifier(body)] = found.count
                found.append((body, [index]))
            }
        }
        for (body, rows) in found {
            var pointing = rows[...]
            if let id = body.id {
                try db.run("UPDATE journal_bodies SET refs = refs + ? WHERE id = ?", [.integer(Int64(rows.count)), .integer(id)])
                if db.changes == 1 {
                    for row in rows { ids[row] = id }
                    continue
                }
                // Deleted since (its last row went): the first row holds the body and starts
                // over, as a body seen for the first time; the others point at it stored anew.
                body.id = nil
                pointing = rows.dropFirst()
                if pointing.isEmpty { continue }
            }
            // Its tenant: every row pointing at it is of one tenant (``Key``), the byte limit's
            // share it counts in (migrations/0015_journal_bodies_tenant.sql).
            try db.run(
                "INSERT INTO journal_bodies (body, url_marked, refs, tenant) VALUES (?, ?, ?, ?)",
                [.blob(body.bytes), .integer(body.markers.isEmpty ? 0 : 1), .integer(Int64(pointing.count)),
                 .text(entries[rows[0]].tenant.rawValue)])
            let id = db.lastInsertRowID
            insertedBytes += body.bytes.count
            body.id = id
            for row in pointing { ids[row] = id }
        }
        return ids
    }

    /// The remembered body `entry`'s row can point at (its response body, or a body Catbird
    /// wrote itself with the row's url marked); nil when it is seen for the first time, and
    /// then remembered (its row holds it).
    private mutating func find(_ entry: borrowing JournalEntry) -> Known? {
        let unanswered = entry.answeredBy == .unanswered
        if unanswered, let at = lastMarked[entry.tenant]?.firstIndex(where: { Self.isBody(entry.responseBody, url: entry.url, of: $0) }) {
            let found = lastMarked[entry.tenant]![at]
            if at > 0 { lastMarked[entry.tenant]!.swapAt(at, at - 1) }  // the often found move up
            return found
        }
        let marked = unanswered ? Self.marked(entry.responseBody, url: entry.url) : nil
        let bytes = marked ?? entry.responseBody
        let key = Self.key(entry.tenant, bytes, marked: marked != nil)
        let body = known[key]?.first(where: { Self.equal($0.bytes, bytes) })
        if body == nil { remember(bytes, as: key) }
        if marked != nil {
            // Comes first; the least recently found goes.
            var recent = lastMarked[entry.tenant] ?? []
            recent.insert(body ?? known[key]!.last!, at: 0)
            if recent.count > Self.recentMarked { recent.removeLast() }
            lastMarked[entry.tenant] = recent
        }
        return body
    }

    private mutating func remember(_ bytes: [UInt8], as key: Key) {
        if rememberedCount >= Self.maxRemembered || rememberedBytes + bytes.count > Self.maxRememberedBytes { removeAll() }
        known[key, default: []].append(Known(bytes: bytes, marked: key.marked))
        rememberedCount += 1
        rememberedBytes += bytes.count
    }

    /// Whether `body` is `known`'s url-marked bytes with each marker replaced by `url`'s
    /// UTF-8 bytes: the bytes the `requests` view gives back for a row of that url pointing
    /// at it, so the row may point at it. (The marked copy ``marked(_:url:)`` would make of
    /// `body` can differ only where `known`'s own bytes hold `url`, which it would mark too;
    /// either way the row reads back as `body`.) One pass: each piece between two markers
    /// and each url compared in place (`memcmp`). False for a body that is not url-marked.
    private static func isBody(_ body: [UInt8], url: String, of known: Known) -> Bool {
        guard !known.markers.isEmpty else { return false }
        var url = url
        return url.withUTF8 { needle in
            guard body.count == known.bytes.count + known.markers.count * (needle.count - 1) else { return false }
            return body.withUnsafeBytes { body in
                known.bytes.withUnsafeBytes { marked in
                    var from = 0  // in `marked`
                    var at = 0  // in `body`
                    for marker in known.markers {
                        let piece = marker - from
                        guard memcmp(body.baseAddress! + at, marked.baseAddress! + from, piece) == 0,
                              needle.isEmpty || memcmp(body.baseAddress! + at + piece, needle.baseAddress!, needle.count) == 0
                        else { return false }
                        from = marker + 1
                        at += piece + needle.count
                    }
                    return memcmp(body.baseAddress! + at, marked.baseAddress! + from, marked.count - from) == 0
                }
            }
        }
    }

    /// Byte equality by `memcmp` (the same buffer is equal at once). Not `[UInt8] ==`, which
    /// compares element by element: about 7 instructions a byte, against memcmp's 0.14 (two
    /// equal 4,096-byte arrays in separate buffers, swiftc -O, callgrind: 28,900 against 580).
    private static func equal(_ one: [UInt8], _ other: [UInt8]) -> Bool {
        guard one.count == other.count else { return false }
        return one.withUnsafeBytes { a in
            other.withUnsafeBytes { b in a.baseAddress == b.baseAddress || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// A marked body can be shorter than 8 bytes (only the unmarked body is at least
    /// ``minimumSize``; one that is mostly its url marks down to a few bytes): its bytes are then
    /// its head, and its tail 0.
    private static func key(_ tenant: TenantID, _ bytes: [UInt8], marked: Bool) -> Key {
        bytes.withUnsafeBytes { raw in
            guard raw.count >= 8 else {
                let head = raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return Key(tenant: tenant, count: raw.count, head: head, tail: 0, marked: marked)
            }
            return Key(
                tenant: tenant, count: raw.count, head: raw.loadUnaligned(as: UInt64.self),
                tail: raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self), marked: marked)
        }
    }

    /// `body` with every occurrence of `url`'s UTF-8 bytes (left to right, not overlapping)
    /// replaced by the byte 0x01; nil when the url does not occur or `body` already holds a
    /// 0x01 byte (it could not be told from a marker).
    static func marked(_ body: [UInt8], url: String) -> [UInt8]? {
        var url = url
        return url.withUTF8 { needle -> [UInt8]? in
            guard !needle.isEmpty else { return nil }
            return body.withUnsafeBytes { haystack -> [UInt8]? in
                guard let base = haystack.baseAddress, memchr(base, 1, haystack.count) == nil else { return nil }
                var result: [UInt8] = []
                var start = 0
                while let at = ByteSearch.firstOffset(of: UnsafeRawBufferPointer(needle), in: haystack, from: start) {
                    if result.isEmpty { result.reserveCapacity(haystack.count) }
                    result.append(contentsOf: haystack[start..<at])
                    result.append(1)
                    start = at + needle.count
                }
                guard start > 0 else { return nil }
                result.append(contentsOf: haystack[start...])
                return result
            }
        }
    }
}
