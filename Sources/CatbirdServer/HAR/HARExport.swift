import CatbirdDomain
import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport
import Foundation
import Synchronization

/// A tenant's journal as a HAR 1.2 document, produced page by page while the client reads it
/// (``HTTPBodyStream``): at most one page of entries is in memory at a time, however large the
/// journal (docs/protocol.md#har-export).
///
/// The document is `{"log": {"version": "1.2", "creator": …, "pages": [], "entries": [` + the
/// entries, comma-separated + `]}}`. Each page is read from SQLite when the previous one has
/// been sent, on the tenant's slow lane while the connection waits suspended (not on the worker
/// thread that sends the answer), through the export's own read-only connection (a page is a few dozen rows by primary key, at most ``pageBudget`` bytes of
/// bodies). A read that fails half-way ends the answer as ``HTTPBodyStream/Step/failed``: the
/// connection is closed without the chunked body's last chunk (an HTTP client reports an
/// incomplete transfer), and the document lacks its closing `]}}`. So does an export whose
/// entries not yet sent were deleted meanwhile (``EntriesDeleted``), told by one rule: the
/// export notes its last entry when it begins (``Journal/exportEnd(of:_:on:)``) and is whole
/// once it has written that one; pages that end before it mean it was deleted unread. An
/// oldest-first export is also cut by a page read with retention's note past its last entry
/// sent (retention deletes the oldest entries first, so its last one may outlive a gap).
///
/// The page it holds is counted in the server's buffered-body budget (`--max-buffered-bodies`)
/// until the answer is sent or its connection closes (``share``, ``heldPageBytes``): an export whose client stops
/// reading keeps its page until the idle timeout (tester finding tester27a-F1: 32 unread exports
/// of 8 tenants held about 3 MB each, 96 MB, outside every bound; four per tenant, any number
/// of tenants).
final class HARExport: Sendable {
    /// The journal was cleared, the tenant dropped, or retention deleted entries while the
    /// export was read, so entries it had not sent yet are gone: the export ends as on a failed
    /// read, not as a whole document (tester finding T11-F11: a clear during the export left a
    /// well-closed HAR of 1,376 of 157,440 entries). Before any byte is sent it is a 409.
    struct EntriesDeleted: HTTPResponseError, CustomStringConvertible {
        var status: Int { 409 }
        var reason: String {
            "the journal was cleared (or the tenant dropped, or retention deleted entries) while the export was read: export again"
        }
        var description: String { reason }
    }

    /// Bodies' bytes one page may hold: 2 MiB (the entries' count follows from the body limit).
    static let pageBudget = 2 << 20

    /// The bytes an export takes from the buffered-body budget when it begins and more pages
    /// follow its first: 3 MiB, a page's 2 MiB of bodies written as JSON (escaped or base64)
    /// with its entries' other fields, whatever the first page holds (tester finding
    /// tester27b-F1: exports whose first 64 entries were small were taken with a full budget,
    /// and their later pages held 3.2 MB each past it).
    static let heldPageBytes = pageBudget / 2 * 3

    /// The most entries after the first page whose stored bytes an export reads when it begins
    /// to size what it takes (``heldBytes(first:rest:)``): 512, a few dozen pages of small
    /// entries; an export with more takes ``heldPageBytes``.
    static let sizedEntries = 512

    /// The bytes an export takes from the budget when it begins: `first`, its first part's
    /// length, when that holds the whole document; else the larger of `first` and the rest's
    /// estimated size, at most ``heldPageBytes``. `rest` is the entries after the first page and
    /// their stored bytes (``CatbirdDomain/Journal/exportSize(of:_:after:count:bodyLimit:on:)``;
    /// nil: more than ``sizedEntries``): as JSON, twice their bytes (escapes, base64) and 2 KiB
    /// each for the fields around them, which bounds every later page of them unless bodies
    /// decode to more (tester finding tester27c-F1: a journal of 20 entries of 100 bytes, 25 KB
    /// as a HAR, took 3 MiB and was refused while 2.3 MB of the budget were free; F3: with
    /// `--max-body-size 1mb`, 7 of 12 exports of 316 KB at once got 503).
    static func heldBytes(first: Int, rest: (entries: Int, bytes: Int)?) -> Int {
        guard let rest else { return max(first, heldPageBytes) }
        let (doubled, overflow) = rest.bytes.multipliedReportingOverflow(by: 2)
        let estimate = overflow ? heldPageBytes : min(heldPageBytes, doubled + rest.entries * 2048)
        return max(first, estimate)
    }

    /// Bodies' bytes (requests' and responses') one page may hold once decoded from their
    /// `Content-Encoding`: 16 MiB, shared out as ``decodedLimit(pageSize:)``.
    static let decodedPageBudget = 16 << 20

    /// The most bytes one body (a request's or a response's) of a page of `pageSize` entries is
    /// decoded to (``HAREntry/content(_:mimeType:decodedLimit:)``): its share of
    /// ``decodedPageBudget``, two bodies an entry, at most what a request body is decoded to for
    /// matching (8 MiB); 512 KiB with the default `--journal-body-limit` (16 entries a page).
    static func decodedLimit(pageSize: Int) -> Int {
        min(CatbirdHandler.decodedBodyLimit, decodedPageBudget / (2 * max(1, pageSize)))
    }

    private let journal: Journal
    /// This export's own read-only connection (``Journal/exportConnection()``): the pages read
    /// on a worker thread never wait behind another route's query.
    private let connection: SerialDatabase
    private let tenant: TenantID
    private let query: JournalQuery
    private let origin: String
    private let pageSize: Int
    private let log: Logger
    private let state: Mutex<State>
    /// The bytes of the budget this export holds: its first part's, or ``heldBytes(first:rest:)``
    /// when more parts follow, grown to each later part's when larger (a growth the budget cannot
    /// give ends the export as a failed read, logged). The answer carries it
    /// (``CatbirdHTTP/HTTPResponse/budgetShare``) until sent or closed.
    let share: ByteBudget.Share

    /// The document's start and first page, produced before answering.
    private let first: [UInt8]

    private struct State {
        /// The part produced last (a page, and the document's end after the last).
        var pending: [UInt8] = []
        /// The last entry written (the next page starts after it).
        var cursor: Int64?
        /// The last entry the export writes, noted when it began (nil: none); written, the
        /// document is whole.
        let end: Int64?
        /// The highest id of the tenant's entries retention had deleted when it began: a page
        /// of an oldest-first export that meets a higher one past where the export stood lost
        /// entries it had not sent.
        let prunedAtStart: Int64
        /// Entries still allowed by `limit`; nil: no limit.
        var remaining: Int?
        var entriesWritten = 0
        var finished = false
    }

    /// Reads the first page at once, so that a database failure is answered as an error
    /// before any byte is sent. Waits for the journal writer first (docs/protocol.md#read-your-writes);
    /// entries journaled after that are not exported.
    /// - Parameters:
    ///   - limit: the most entries to write; nil: every entry the query selects.
    ///   - journalBodyLimit: the largest body a journal row holds, in bytes (sets the page size).
    ///   - budget: the server's buffered-body budget, which counts the page held (``share``).
    /// - Throws: `SQLiteError`; `APIError` 503 (``APIError/answersOverBudget(bytes:in:)``)
    ///   when the budget cannot count the first page.
    init(
        journal: Journal, tenant: TenantID, query: JournalQuery, limit: Int?, origin: String, journalBodyLimit: Int,
        budget: ByteBudget, log: Logger
    ) throws {
        self.journal = journal
        connection = try journal.exportConnection()
        self.tenant = tenant
        // Entries journaled after the export began are left out, so a busy tenant's export ends.
        var query = query
        let end = try journal.latestID(of: tenant) + 1
        query.before = min(query.before ?? end, end)
        self.query = query
        self.origin = origin
        self.log = log
        pageSize = max(1, min(64, Self.pageBudget / max(1, 2 * journalBodyLimit)))
        let header = #"{"log":{"version":"1.2","creator":{"name":"Catbird","version":"\#(CatbirdServer.version)"},"pages":[],"entries":["#
        let (last, pruned) = try journal.exportEnd(of: tenant, self.query, on: connection)
        var opening = State(pending: Array(header.utf8), end: last, prunedAtStart: pruned, remaining: limit)
        try Self.append(page: &opening, journal: journal, connection: connection, tenant: tenant, query: self.query, origin: origin, pageSize: pageSize)
        first = opening.pending
        opening.pending = []
        state = Mutex(opening)
        share = ByteBudget.Share(of: budget, for: ByteBudget.Holder(tenant.rawValue))
        var held = first.count
        if !opening.finished {
            // Sized by a read of the rows later pages read: one that fails (a damaged page) sizes
            // nothing and takes a whole page; the page itself then fails when it is read, as
            // documented for a later page (the first one was read, so the answer is a 200).
            let count = min(Self.sizedEntries + 1, opening.remaining ?? Int.max)
            let rest = try? journal.exportSize(
                of: tenant, self.query, after: opening.cursor, count: count, bodyLimit: journalBodyLimit, on: connection)
            held = Self.heldBytes(first: first.count, rest: rest.flatMap { $0.entries > Self.sizedEntries ? nil : $0 })
        }
        // One first part larger than what the budget can give goes when it holds the budget alone.
        guard share.grow(toHold: held, largest: held) || share.takeAlone(held) else {
            throw APIError.answersOverBudget(bytes: held, in: share)
        }
    }

    /// The response body, each page after the first read and encoded by `run` (the tenant's
    /// slow lane), not on the worker sending the answer (tester finding tester34a-F2).
    func body(makingPagesOn run: @escaping @Sendable (_ job: @escaping @Sendable () -> Void) -> Void) -> HTTPBodyStream {
        HTTPBodyStream.parts(first: first, makingOn: run) { [self] in try nextPart() }
    }

    /// The document's length in bytes, for the answer to `HEAD` to declare: libmicrohttpd 0.9.75
    /// sends a chunked body's last chunk (`0`) even to `HEAD`, which the client would read as
    /// the next answer's start. The document is produced page by page as for `GET` and only
    /// counted: a `GET`'s reading and encoding, one page in memory at a time. Uses up this
    /// export (its body then sends nothing more).
    /// - Throws: `SQLiteError` when a page cannot be read.
    func byteCount() throws -> Int {
        var total = first.count
        while let part = try nextPart() { total += part.count }
        return total
    }

    /// The next page, the document's end after the last, or nil once that was sent.
    private func nextPart() throws -> [UInt8]? {
        try state.withLock { state in
            if state.finished { return nil }
            let sent = state.entriesWritten  // the page read now is not sent when it fails
            do {
                try Self.append(page: &state, journal: journal, connection: connection, tenant: tenant, query: self.query, origin: origin, pageSize: pageSize)
            } catch {
                // The connection is closed without the last chunk: the client sees an
                // incomplete transfer, and the document lacks its closing `]}}`.
                log.error("HAR export of tenant \(tenant) stopped after \(sent.counted("entry", "entries")): \(error)")
                state.finished = true
                throw error
            }
            defer { state.pending = [] }
            // A page larger than the bytes taken (bodies decoded from their Content-Encoding, or
            // escaped many times over) that the budget cannot count ends the export as a failed
            // read does: the budget bounds what unread answers hold. Load, not a fault: a
            // warning, as a refused export is not an error (tester finding tester27c-F2: logged
            // as `[error]`, with the entries of the page not sent counted as sent).
            guard share.grow(toHold: state.pending.count, largest: state.pending.count) else {
                let refusal = APIError.answersOverBudget(bytes: state.pending.count, in: share)
                log.warning("HAR export of tenant \(tenant) stopped after \(sent.counted("entry", "entries")): \(refusal.reason)")
                state.finished = true
                throw refusal
            }
            return state.pending
        }
    }

    /// Appends the next page of entries to `pending`, and the document's end after the last.
    /// - Throws: ``EntriesDeleted`` when the pages end before the export's last entry (deleted
    ///   before it was read); `SQLiteError`, `EncodingError`.
    private static func append(
        page state: inout State, journal: Journal, connection: SerialDatabase, tenant: TenantID, query: JournalQuery, origin: String, pageSize: Int
    ) throws {
        let count = min(pageSize, state.remaining ?? pageSize)
        // Called until the last entry is written or the limit used up (or the pages end): only
        // an export that selects nothing has no page to read.
        let (entries, pruned) = state.end == nil
            ? ([], 0) : try journal.exportPage(of: tenant, query, after: state.cursor, count: count, on: connection)
        // Retention deletes the oldest entries first: past where an oldest-first export stood,
        // entries it had not sent went, though its last one may still be there.
        if !query.newestFirst, pruned > max(state.cursor ?? query.since ?? 0, state.prunedAtStart) {
            throw EntriesDeleted()
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]  // the same bytes each export (tester48b-F3)
        for entry in entries {
            if state.entriesWritten > 0 { state.pending.append(UInt8(ascii: ",")) }
            state.pending += try encoder.encode(HAREntry(entry, origin: origin, decodedLimit: decodedLimit(pageSize: pageSize), bodies: query.includeBodies))
            state.entriesWritten += 1
            state.cursor = entry.id
        }
        state.remaining = state.remaining.map { $0 - entries.count }
        // Whole once the last entry was written (or the limit used up); a page that ends before
        // it means a clear, a drop or retention deleted it before it was read, and with it what
        // was not sent yet (T11-F11). One page read decides, whatever is deleted after it.
        if state.cursor == state.end || state.remaining == 0 {
            state.pending += Array("]}}".utf8)
            state.finished = true
        } else if entries.count < count {
            throw EntriesDeleted()
        }
    }
}
