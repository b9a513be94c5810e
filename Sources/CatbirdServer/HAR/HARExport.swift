import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Foundation
import Synchronization

/// A tenant's journal as a HAR 1.2 document, produced page by page while the client reads it
/// (``HTTPBodyStream``): at most one page of entries is in memory at a time, however large the
/// journal (docs/protocol.md#har-export).
///
/// The document is `{"log": {"version": "1.2", "creator": …, "pages": [], "entries": [` + the
/// entries, comma-separated + `]}}`. Each page is read from SQLite when the previous one has
/// been sent, on the worker thread that sends the answer (a page is a few dozen indexed rows,
/// at most ``pageBudget`` bytes of bodies). A read that fails half-way aborts the body (the
/// connection closes without the last chunk), so a client never takes a cut document for a
/// whole one.
final class HARExport: Sendable {
    /// Bodies' bytes one page may hold: 2 MiB (the entries' count follows from the body limit).
    static let pageBudget = 2 << 20

    private let journal: Journal
    private let tenant: TenantID
    private let query: JournalQuery
    private let origin: String
    private let pageSize: Int
    private let log: Logger
    private let state: Mutex<State>

    private struct State {
        /// Bytes produced and not yet sent, from `sent` on.
        var pending: [UInt8]
        var sent = 0
        /// The last entry written (the next page starts after it).
        var cursor: Int64?
        /// Entries still allowed by `limit`; nil: no limit.
        var remaining: Int?
        var entriesWritten = 0
        var finished = false
    }

    /// Reads the first page at once, so that a database failure is answered as an error
    /// before any byte is sent. Waits for the journal writer first (docs/protocol.md#read-your-writes).
    /// - Parameters:
    ///   - limit: the most entries to write; nil: every entry the query selects.
    ///   - journalBodyLimit: the largest body a journal row holds, in bytes (sets the page size).
    /// - Throws: `SQLiteError`.
    init(journal: Journal, tenant: TenantID, query: JournalQuery, limit: Int?, origin: String, journalBodyLimit: Int, log: Logger) throws {
        self.journal = journal
        self.tenant = tenant
        self.query = query
        self.origin = origin
        self.log = log
        pageSize = max(1, min(64, Self.pageBudget / max(1, 2 * journalBodyLimit)))
        journal.flush()
        let header = #"{"log":{"version":"1.2","creator":{"name":"Catbird","version":"\#(CatbirdServer.version)"},"pages":[],"entries":["#
        var first = State(pending: Array(header.utf8), remaining: limit)
        try Self.append(page: &first, journal: journal, tenant: tenant, query: query, origin: origin, pageSize: pageSize)
        state = Mutex(first)
    }

    /// The response body.
    var body: HTTPBodyStream {
        HTTPBodyStream { [self] _, buffer in fill(buffer) }
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        state.withLock { state in
            while state.sent == state.pending.count {
                if state.finished { return nil }
                state.pending = []
                state.sent = 0
                do {
                    try Self.append(page: &state, journal: journal, tenant: tenant, query: query, origin: origin, pageSize: pageSize)
                } catch {
                    log.error("HAR export of tenant \(tenant) stopped after \(state.entriesWritten) entries: \(error)")
                    return HTTPBodyStream.abort
                }
            }
            let count = min(buffer.count, state.pending.count - state.sent)
            state.pending.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.sent..<(state.sent + count)]))
            }
            state.sent += count
            return count
        }
    }

    /// Appends the next page of entries to `pending`, and the document's end after the last.
    private static func append(
        page state: inout State, journal: Journal, tenant: TenantID, query: JournalQuery, origin: String, pageSize: Int
    ) throws {
        let count = min(pageSize, state.remaining ?? pageSize)
        let entries = count > 0 ? try journal.exportPage(of: tenant, query, after: state.cursor, count: count) : []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        for entry in entries {
            if state.entriesWritten > 0 { state.pending.append(UInt8(ascii: ",")) }
            state.pending += try encoder.encode(HAREntry(entry, origin: origin))
            state.entriesWritten += 1
            state.cursor = entry.id
        }
        state.remaining = state.remaining.map { $0 - entries.count }
        if entries.count < count || count == 0 {
            state.pending += Array("]}}".utf8)
            state.finished = true
        }
    }
}
