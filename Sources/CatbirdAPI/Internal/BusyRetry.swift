import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a call Catbird refused with `429 Too Many Requests` is sent again.
///
/// Catbird answers a tenant's call past its fair share at once with a 429 and does nothing
/// (docs/tenancy.md#fair-shares: at most 2 SQL queries and 4 slow control calls of one tenant
/// running or waiting; "retry when one has answered"). A client shared between tasks makes
/// such bursts in ordinary use (three `async let` SQL queries; tester finding tester48c-F1),
/// so the transport sends the call again after a short pause, as many times as fit in
/// ``budget``, and only the last 429 is thrown. Only Catbird's own 429 (its error JSON) is
/// retried: another server's is thrown as it is.
enum BusyRetry {
    /// How long, from the first request, a refused call keeps being sent again: 30 seconds,
    /// the default session's request timeout.
    static let budget: TimeInterval = 30

    /// The pause before attempt `attempt` (1 for the first repeat) in seconds: the answer's
    /// `Retry-After` in seconds when it has one, else 10 ms doubled per attempt up to 250 ms,
    /// each with up to a quarter more at random so that waiting tasks do not come back in step;
    /// nil when the pause would end past ``budget`` counted from `firstSent`.
    static func pause(before attempt: Int, retryAfter: String?, firstSent: Date, now: Date = Date()) -> TimeInterval? {
        let backoff = min(0.25, 0.01 * pow(2, Double(min(attempt - 1, 10))))
        let base = retryAfter.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? backoff
        let pause = base * (1 + Double.random(in: 0..<0.25))
        return now.timeIntervalSince(firstSent) + pause <= budget ? pause : nil
    }

    /// Whether an answer is Catbird's refusal of a call past its tenant's share.
    static func isRefusal(_ response: URLResponse?, data: Data?) -> Bool {
        (response as? HTTPURLResponse)?.statusCode == 429 && CatbirdError.isCatbirdsError(data ?? Data())
    }
}

/// The requests one call has sent (a call refused with Catbird's 429 is sent again as a new
/// request, ``BusyRetry``), for cancelling the one under way: cancelling the call cancels the
/// current request, and a repeat started after that is cancelled at once.
final class CallAttempts: Sendable {
    private let state = Locked<RunningTask>(RunningTask())

    /// Resumes `task` as the call's current request, and cancels it at once when the call was
    /// cancelled before (its completion then gets `URLError(.cancelled)`).
    func run(_ task: URLSessionTask) {
        task.resume()
        let cancelled = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    /// Forgets the current request once it has ended (refused, a repeat to follow): cancelling
    /// a finished task ends the process in swift-corelibs-foundation ("a task that is not in
    /// the registry"), seen when a task was cancelled during the pause before its repeat.
    func ended() {
        state.withLock { $0.task = nil }
    }

    /// Cancels the call: its current request, and any repeat it would start.
    func cancel() {
        let task = state.withLock { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// The request of a call under way, for its cancellation.
struct RunningTask: @unchecked Sendable {
    // @unchecked Sendable: URLSessionTask is documented thread-safe (its state and cancel()
    // may be used from any thread) though not marked Sendable on every platform; this value
    // only ever lives inside a `Locked` box.
    var task: URLSessionTask?
    var isCancelled = false
}
