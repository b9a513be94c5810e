import CatbirdSupport
import Synchronization

/// Counts of answered requests since start, for `/catbird/metrics`: by who answered and the
/// status class, and a histogram of the time taken to work out each answer; and, apart, the
/// requests that ended with nothing sent (``Unanswered``).
///
/// No lock: every count is its own atomic counter, bumped with one relaxed add per request
/// (two more for the latency bucket and sum), so request threads never wait for each other
/// here. A scrape reads the counters one by one; a request counted meanwhile may show in one
/// figure and not yet in another, but the histogram's count is the sum of its buckets.
///
/// The time is from the request's arrival to the answer being ready, in seconds; a mock's
/// `delay` is not included (it is waited out after).
final class RequestMetrics: Sendable {
    /// Who answered: `control` (the `/catbird` routes) or the journal's `answered_by`
    /// (`mock`, `file`, `proxy`, `redirect`, `none`).
    static let answerers = ["control", "mock", "file", "proxy", "redirect", "none"]
    /// Status classes `1xx` … `5xx`.
    static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]
    /// Upper bounds of the latency buckets, in seconds (from 0.5 ms to 10 s).
    static let latencyBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]
    /// ``latencyBounds`` in nanoseconds, compared with each request's time.
    private static let latencyBoundsNanoseconds = latencyBounds.map { Int64(($0 * 1e9).rounded()) }

    /// A copy of the counts at one moment.
    struct Snapshot: Sendable {
        /// `requests[answerer][statusClass]`, indexed as ``answerers`` and ``statusClasses``.
        var requests = Array(repeating: Array(repeating: 0, count: statusClasses.count), count: answerers.count)
        /// Requests whose latency was at most `latencyBounds[i]` (cumulative).
        var latencyAtMost = Array(repeating: 0, count: latencyBounds.count)
        var latencyCount = 0
        /// Seconds, summed over every request.
        var latencySum = 0.0
        /// Requests that ended with nothing sent, indexed as ``Unanswered/allCases``.
        var unanswered = Array(repeating: 0, count: Unanswered.allCases.count)
    }

    /// Why a request ended with nothing sent (counted apart from the answered ones: not in
    /// `catbird_requests_total` nor in the latency histogram; journaled as 499 or 408).
    enum Unanswered: String, CaseIterable, Sendable {
        /// The client hung up first (journaled 499): before its request was complete, during a
        /// mock's delay, or while a control route or the upstream was answering.
        case clientLeft = "client_left"
        /// The connection timed out before the request was complete (journaled 408).
        case timedOut = "timed_out"
        /// The server closed its idle keep-alive connection to make room as the request
        /// arrived (journaled 503; ``CatbirdHTTP/HTTPRequestEnding/idleClosedForRoom``).
        case closedForRoom = "closed_for_room"
    }

    /// One counter; a class so that an array can hold the (non-copyable) atomics.
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// `answerers.count * statusClasses.count` counters, answerer-major.
    private let requests = (0..<(answerers.count * statusClasses.count)).map { _ in Counter() }
    /// Requests per latency bucket, not cumulative; the last one is over every bound.
    private let latencyBuckets = (0...latencyBounds.count).map { _ in Counter() }
    private let latencyNanoseconds = Atomic<Int>(0)
    private let unanswered = Unanswered.allCases.map { _ in Counter() }

    /// Counts one request that ended with nothing sent.
    func recordUnanswered(_ why: Unanswered) {
        unanswered[Unanswered.allCases.firstIndex(of: why)!].value.add(1, ordering: .relaxed)
    }

    /// Counts one answer. `answeredBy` outside ``answerers`` counts as `none`; a status outside
    /// 100…599 counts in the nearest class.
    func record(answeredBy: String, status: Int, latency: Duration) {
        let who = Self.answerers.firstIndex(of: answeredBy) ?? Self.answerers.count - 1
        let statusClass = min(max(status / 100, 1), 5) - 1
        let nanoseconds = max(0, latency.nanoseconds)
        let bucket = Self.latencyBoundsNanoseconds.firstIndex { nanoseconds <= $0 } ?? Self.latencyBounds.count
        requests[who * Self.statusClasses.count + statusClass].value.add(1, ordering: .relaxed)
        latencyBuckets[bucket].value.add(1, ordering: .relaxed)
        latencyNanoseconds.add(Int(nanoseconds), ordering: .relaxed)
    }

    func snapshot() -> Snapshot {
        var snapshot = Snapshot()
        for who in Self.answerers.indices {
            for statusClass in Self.statusClasses.indices {
                snapshot.requests[who][statusClass] =
                    requests[who * Self.statusClasses.count + statusClass].value.load(ordering: .relaxed)
            }
        }
        var cumulative = 0
        for (index, bucket) in latencyBuckets.enumerated() {
            cumulative += bucket.value.load(ordering: .relaxed)
            if index < Self.latencyBounds.count { snapshot.latencyAtMost[index] = cumulative }
        }
        snapshot.latencyCount = cumulative
        snapshot.latencySum = Double(latencyNanoseconds.load(ordering: .relaxed)) / 1e9
        snapshot.unanswered = unanswered.map { $0.value.load(ordering: .relaxed) }
        return snapshot
    }
}
