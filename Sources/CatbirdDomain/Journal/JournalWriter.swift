import CatbirdStorage
import Foundation

/// Writes journal entries off the request path: one writer thread, transactions of many rows,
/// a bounded queue.
///
/// `append` never touches the disk; it blocks only when `capacity` entries or `byteCapacity`
/// bytes of bodies are already waiting (back-pressure rather than loss). ``flush()`` waits until everything appended before the call
/// is committed, which is how journal queries read their own writes.
public final class JournalWriter: Sendable {
    /// Entries waiting at most; `append` blocks beyond this.
    public let capacity: Int
    /// Body bytes waiting at most (after truncation to `bodyLimit`); `append` blocks beyond this.
    public let byteCapacity: Int
    /// Bytes of each body stored at most; longer bodies are truncated and marked.
    public let bodyLimit: Int
    private let database: SerialDatabase
    private let log: Logger
    /// Guards `state`; also the condition every waiter (appenders, flushers, the writer) waits on.
    private let condition = NSCondition()
    /// `nonisolated(unsafe)`: read and written only while `condition` is locked.
    nonisolated(unsafe) private var state = State()

    private struct State {
        var queue: [JournalEntry] = []
        var queuedBytes = 0
        var appended: UInt64 = 0
        var committed: UInt64 = 0
        var stopping = false
        var stopped = false
    }

    /// Starts the writer thread.
    /// - Parameters:
    ///   - capacity: queue bound, in entries.
    ///   - byteCapacity: queue bound, in bytes of (truncated) bodies.
    ///   - bodyLimit: bytes of each request/response body kept in the journal.
    public init(
        database: SerialDatabase, capacity: Int = 50_000, byteCapacity: Int = 64 << 20, bodyLimit: Int, log: Logger
    ) {
        self.database = database
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
        self.bodyLimit = max(0, bodyLimit)
        self.log = log
        let thread = Thread { [self] in run() }
        thread.name = "catbird-journal"  // Linux keeps 15 characters
        thread.start()
    }

    /// Queues an entry for writing. Returns at once unless the queue is full.
    public func append(_ entry: JournalEntry) {
        var entry = entry
        entry.truncateBodies(to: bodyLimit)
        let bytes = entry.requestBody.count + entry.responseBody.count
        condition.lock()
        while !state.stopping && !state.queue.isEmpty
            && (state.queue.count >= capacity || state.queuedBytes + bytes > byteCapacity) {
            condition.wait()
        }
        state.queue.append(entry)
        state.queuedBytes += bytes
        state.appended += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until every entry appended before this call is committed.
    public func flush() {
        condition.lock()
        let target = state.appended
        while state.committed < target && !state.stopped { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued, then stops the writer thread. Appends after this are dropped.
    public func stop() {
        condition.lock()
        state.stopping = true
        condition.broadcast()
        while !state.stopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while state.queue.isEmpty && !state.stopping { condition.wait() }
            if state.queue.isEmpty && state.stopping {
                state.stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = state.queue
            state.queue = []
            state.queuedBytes = 0
            state.queue.reserveCapacity(min(capacity, 1024))
            condition.broadcast()  // room in the queue again
            condition.unlock()

            write(batch)

            condition.lock()
            state.committed += UInt64(batch.count)
            condition.broadcast()
            condition.unlock()
        }
    }

    private func write(_ batch: [JournalEntry]) {
        for attempt in 1...3 {
            do {
                try database.use { db in
                    try db.transaction { try JournalRecords.insert(batch, into: db) }
                }
                return
            } catch {
                log.error("journal: writing \(batch.count) entries failed (attempt \(attempt) of 3): \(error)")
                usleep(useconds_t(attempt * 50_000))
            }
        }
        log.error("journal: dropped \(batch.count) entries after 3 failed attempts")
    }
}
