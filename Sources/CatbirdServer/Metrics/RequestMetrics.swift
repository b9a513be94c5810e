import Synchronization

/// Counts of answered requests since start, for `/catbird/metrics`: by who answered and the
/// status class, and a histogram of the time taken to work out each answer.
///
/// One short lock per request. The time is from the request's arrival (body read) to the
/// answer being ready, in seconds; a mock's `delay` is not included (it is waited out after).
final class RequestMetrics: Sendable {
    /// Who answered: `control` (the `/catbird` routes) or the journal's `answered_by`
    /// (`mock`, `file`, `proxy`, `redirect`, `none`).
    static let answerers = ["control", "mock", "file", "proxy", "redirect", "none"]
    /// Status classes `1xx` … `5xx`.
    static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]
    /// Upper bounds of the latency buckets, in seconds (from 0.5 ms to 10 s).
    static let latencyBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]

    /// A copy of the counts at one moment.
    struct Snapshot: Sendable {
        /// `requests[answerer][statusClass]`, indexed as ``answerers`` and ``statusClasses``.
        var requests = Array(repeating: Array(repeating: 0, count: statusClasses.count), count: answerers.count)
        /// Requests whose latency was at most `latencyBounds[i]` (cumulative).
        var latencyAtMost = Array(repeating: 0, count: latencyBounds.count)
        var latencyCount = 0
        /// Seconds, summed over every request.
        var latencySum = 0.0
    }

    private let state = Mutex(Snapshot())

    /// Counts one answer. `answeredBy` outside ``answerers`` counts as `none`; a status outside
    /// 100…599 counts in the nearest class.
    func record(answeredBy: String, status: Int, latency: Duration) {
        let who = Self.answerers.firstIndex(of: answeredBy) ?? Self.answerers.count - 1
        let statusClass = min(max(status / 100, 1), 5) - 1
        let seconds = Double(latency.components.seconds) + Double(latency.components.attoseconds) * 1e-18
        state.withLock { snapshot in
            snapshot.requests[who][statusClass] += 1
            snapshot.latencyCount += 1
            snapshot.latencySum += seconds
            for (index, bound) in Self.latencyBounds.enumerated() where seconds <= bound {
                snapshot.latencyAtMost[index] += 1
            }
        }
    }

    func snapshot() -> Snapshot {
        state.withLock { $0 }
    }
}
