import Dispatch
import Foundation
import Synchronization

/// A few dedicated threads for work too slow for the server's workers (SQL, big deletes, waits
/// for a flush): jobs run in arrival order, up to `threadCount` at once, each to completion.
///
/// With ``HTTPAnswer/later(on:_:)`` a route's slow work runs here while its connection is parked,
/// so libmicrohttpd's workers keep serving every other connection (one tenant's 2-second query
/// never delays another tenant's mock hits).
public final class HTTPWorkPool: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    private let running = DispatchGroup()
    /// The number of threads.
    public let threadCount: Int

    /// Starts `threadCount` threads (at least 1) named `name`.
    public init(threadCount: Int, name: String) {
        self.threadCount = max(1, threadCount)
        for index in 0..<self.threadCount {
            running.enter()
            let thread = Thread { [self] in
                runJobs()
                running.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues `job`. Jobs queued after ``stop()`` never run (and are released at once).
    public func run(_ job: @escaping @Sendable () -> Void) {
        let accepted = queue.withLock { queue in
            guard !queue.stopped else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
    }

    /// Drops the jobs not yet started, waits for the running ones to finish and ends the
    /// threads. Safe to call twice. (A dropped job's responder answers 500 when released, which
    /// after the server's own stop does nothing.)
    public func stop() {
        let dropped: [@Sendable () -> Void]? = queue.withLock { queue in
            guard !queue.stopped else { return nil }
            queue.stopped = true
            defer { queue.jobs = []; queue.head = 0 }
            return queue.jobs
        }
        guard let dropped else { return }
        for _ in 0..<threadCount { available.signal() }
        running.wait()
        _ = dropped  // released here, outside the lock
    }

    private func runJobs() {
        while true {
            available.wait()
            let next: (@Sendable () -> Void)?? = queue.withLock { queue in
                if queue.head < queue.jobs.count {
                    let job = queue.jobs[queue.head]
                    queue.head += 1
                    if queue.head > 64, queue.head * 2 > queue.jobs.count {
                        queue.jobs.removeFirst(queue.head)
                        queue.head = 0
                    }
                    return .some(job)
                }
                return queue.stopped ? .none : .some(nil)
            }
            switch next {
            case .none: return  // stopped and drained
            case .some(nil): continue
            case let .some(job?): job()
            }
        }
    }
}

extension HTTPAnswer {
    /// Answers later with what `work` returns, computed on `pool` (not on a server worker).
    public static func later(on pool: HTTPWorkPool, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPAnswer {
        .later { responder in pool.run { responder.send(work()) } }
    }
}
