import Dispatch
import Foundation
import Synchronization

/// A few dedicated threads for work too slow for the server's workers (SQL, big deletes, waits
/// for a flush), shared fairly between keys (the server's key is the tenant): jobs of one key
/// run in arrival order, at most ``perKeyLimit`` of them at once, and of the keys with jobs
/// waiting the one whose last job started longest ago goes next (keys that keep the pool busy
/// take turns, round robin; a key with no job started lately goes before all of them), so one
/// key's burst of slow jobs never holds more than its share of the threads, and another key's
/// job waits for one running job to end, not for a turn of every busy key (tester finding
/// tester20b-F3: with plain round robin, an idle tenant's count waited 6-8 s behind twelve
/// tenants' 2-second counts on 4 threads, and a 2-second wait took 14-16 s).
///
/// `Key` is whatever names a share; the server keys its pools by tenant (`TenantID`, whose
/// equality is byte equality, so two canonically equivalent ids are two keys:
/// docs/tenancy.md#tenant-of-a-request), with no per-job conversion to another type.
///
/// With ``HTTPAnswer/later(on:key:_:)`` a route's slow work runs here while its connection is
/// parked, so libmicrohttpd's workers keep serving every other connection (one tenant's
/// 2-second query never delays another tenant's mock hits).
public final class HTTPWorkPool<Key: Hashable & Sendable>: Sendable {
    private struct Queue {
        /// Each key's jobs not yet started, oldest first.
        var waiting: [Key: KeyQueue] = [:]
        /// The keys with waiting jobs, in turn order (the next turn goes to the first one that
        /// is under its limit).
        var turns: [Key] = []
        /// Running jobs per key (keys with none are absent).
        var running: [Key: Int] = [:]
        /// When each key's last job started, as a count of the jobs started (larger is later;
        /// absent: none lately, ``forgetAfter``).
        var lastStarted: [Key: UInt64] = [:]
        /// Jobs started so far.
        var started: UInt64 = 0
        var stopped = false
    }

    /// Jobs started after which a key with none waiting or running is forgotten by
    /// ``Queue/lastStarted``, which then counts as none lately (checked once the map holds
    /// twice this many keys): 4096, so the map stays bounded however many keys come and go.
    static var forgetAfter: UInt64 { 4096 }

    /// One key's waiting jobs: a FIFO with a moving head (no shift per job).
    private struct KeyQueue {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var isEmpty: Bool { head == jobs.count }

        mutating func pop() -> @Sendable () -> Void {
            let job = jobs[head]
            head += 1
            if head > 64, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let queue = Mutex(Queue())
    /// Signalled when a job is queued or finishes (either may let a waiting job start); a thread
    /// that wakes and finds nothing it may start waits again.
    private let changed = DispatchSemaphore(value: 0)
    private let running = DispatchGroup()
    /// The number of threads.
    public let threadCount: Int
    /// The most jobs of one key running at once (at most ``threadCount``).
    public let perKeyLimit: Int

    /// Starts `threadCount` threads (at least 1) named `name`, followed by `-` and the thread's
    /// index when there are several (``Foundation/Thread/named(_:_:)``: the kernel keeps 15 bytes).
    /// - Parameter perKeyLimit: the most jobs of one key running at once; nil: `threadCount`
    ///   (any key may use every thread, but keys still take turns).
    /// - Parameter niceness: the threads' nice value (Linux `setpriority` on each thread, 0 to
    ///   19): a pool of CPU-bound work given 10 yields the cores to the server's
    ///   workers when both want them.
    public init(threadCount: Int, perKeyLimit: Int? = nil, name: String, niceness: Int32 = 0) {
        self.threadCount = max(1, threadCount)
        self.perKeyLimit = min(self.threadCount, max(1, perKeyLimit ?? self.threadCount))
        for index in 0..<self.threadCount {
            running.enter()
            let thread = Thread.named(self.threadCount > 1 ? "\(name)-\(index)" : name) { [self] in
                // Linux keeps the nice value per thread: `who` 0 is the calling thread (setpriority(2), NOTES).
                if niceness > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                runJobs()
                running.leave()
            }
            thread.start()
        }
    }

    /// Queues `job` under `key`. Jobs queued after ``stop()`` never run (and are released at once).
    public func run(key: Key, _ job: @escaping @Sendable () -> Void) {
        let accepted = queue.withLock { queue in
            guard !queue.stopped else { return false }
            if queue.waiting[key, default: KeyQueue()].isEmpty { queue.turns.append(key) }
            queue.waiting[key, default: KeyQueue()].jobs.append(job)
            return true
        }
        if accepted { changed.signal() }
    }

    /// How many of `key`'s jobs are running now (for a reason that says what a waiting job
    /// waited for).
    public func runningJobs(of key: Key) -> Int {
        queue.withLock { $0.running[key, default: 0] }
    }

    /// Drops the jobs not yet started (with `runningWaiting`, runs them on the calling thread
    /// instead, once the running ones are done), waits for the running ones to finish and ends
    /// the threads. Safe to call twice. (A dropped job's responder answers 500 when released,
    /// which after the server's own stop does nothing.)
    /// - Parameter runningWaiting: for jobs that are quick once their client no longer waits and
    ///   record what became of it then (the matching lanes': tester finding tester55a-F2, the
    ///   requests they dropped at a stop were in no journal, though their clients got its 503).
    public func stop(runningWaiting: Bool = false) {
        let dropped: [Key: KeyQueue]? = queue.withLock { queue in
            guard !queue.stopped else { return nil }
            queue.stopped = true
            defer { queue.waiting = [:]; queue.turns = [] }
            return queue.waiting
        }
        guard let dropped else { return }
        for _ in 0..<threadCount { changed.signal() }
        running.wait()
        guard runningWaiting else { return }  // the dropped jobs are released here, outside the lock
        for var keyQueue in dropped.values {
            while !keyQueue.isEmpty { keyQueue.pop()() }
        }
    }

    private enum Next {
        case job(key: Key, @Sendable () -> Void)
        case nothingToStart
        case stop
    }

    private func runJobs() {
        while true {
            changed.wait()
            switch queue.withLock({ Self.next(&$0, perKeyLimit: perKeyLimit) }) {
            case .stop:
                changed.signal()  // another thread may be waiting for the same news
                return
            case .nothingToStart:
                continue
            case let .job(key, job):
                job()
                let jobsWait = queue.withLock { queue in
                    let count = queue.running[key, default: 1] - 1
                    queue.running[key] = count > 0 ? count : nil
                    return !queue.turns.isEmpty
                }
                // The finished job freed a place of its key: one waiting job may start now. With
                // none waiting nothing is signalled: until 2026-12-02 every finished job woke an
                // idle thread of the pool, which found nothing and slept again, so each control
                // call (a mock update on the quick lane) cost a second wake-up and put one more
                // runnable thread on a core right as its answer went out.
                if jobsWait { changed.signal() }
            }
        }
    }

    /// Of the keys under their limit, the one whose last job started longest ago (the first in
    /// turn order among equals) gives up its oldest job and goes to the back of the line (when it
    /// still has jobs waiting).
    private static func next(_ queue: inout Queue, perKeyLimit: Int) -> Next {
        if queue.stopped, queue.turns.isEmpty { return .stop }
        var turn: Int?
        var turnStarted = UInt64.max
        for (index, key) in queue.turns.enumerated() where queue.running[key, default: 0] < perKeyLimit {
            let started = queue.lastStarted[key] ?? 0
            guard started < turnStarted else { continue }
            (turn, turnStarted) = (index, started)
            if started == 0 { break }
        }
        guard let turn else { return .nothingToStart }
        let key = queue.turns.remove(at: turn)
        queue.started += 1
        queue.lastStarted[key] = queue.started
        if queue.lastStarted.count > 2 * Int(forgetAfter) { forgetIdleKeys(&queue) }
        let job = queue.waiting[key]!.pop()
        if queue.waiting[key]!.isEmpty {
            queue.waiting[key] = nil
        } else {
            queue.turns.append(key)
        }
        queue.running[key, default: 0] += 1
        return .job(key: key, job)
    }

    /// Forgets when the keys that have no job waiting or running and started none in the last
    /// ``forgetAfter`` jobs last started one.
    private static func forgetIdleKeys(_ queue: inout Queue) {
        let started = queue.started
        queue.lastStarted = queue.lastStarted.filter { key, last in
            started - last <= forgetAfter || queue.waiting[key] != nil || queue.running[key] != nil
        }
    }
}

extension HTTPAnswer {
    /// Answers later with what `work` returns, computed on `pool` under `key` (not on a server
    /// worker). The work runs whatever the client does, so only a reset counts as the client
    /// gone meanwhile: one that half-closed its socket gets the answer (``HTTPHangUpWatch/resetOnly``).
    public static func later<Key>(on pool: HTTPWorkPool<Key>, key: Key, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPAnswer {
        .later(watching: .resetOnly) { responder in pool.run(key: key) { responder.send(work()) } }
    }
}
