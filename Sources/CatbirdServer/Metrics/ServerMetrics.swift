import Foundation
import Synchronization

/// What `/catbird/metrics` reports besides the journal writer's own statistics: the request
/// counts and where the database files are (their sizes are read at each scrape).
final class ServerMetrics: Sendable {
    let requests = RequestMetrics()
    /// Mocks skipped because their regular expression ran out of a request's evaluation budget
    /// (docs/matching.md#evaluation-budget), since start; one per mock and request.
    let regexpBudgetOverruns = Atomic<Int>(0)
    /// Requests whose regular expressions outlasted a worker's slice and were matched on the
    /// matching lane (``MatchingLane``), since start.
    let slowMatchingRequests = Atomic<Int>(0)
    /// Requests refused with 429 because their tenant already had ``MatchingLane/admittedPerTenant``
    /// requests on the matching lane, since start.
    let slowMatchingRefused = Atomic<Int>(0)
    /// Requests whose body over 64 KiB a body pattern had to read, matched on the body lane
    /// (``CatbirdHandler/matchOnBodyLane(_:tenant:bytes:)``), since start.
    let bodyLaneRequests = Atomic<Int>(0)
    /// Requests refused with 429 because their tenant already had ``MatchingLane/admittedPerTenant``
    /// requests on the body lane, since start.
    let bodyLaneRefused = Atomic<Int>(0)
    /// The database file; its `-wal` file is counted with it.
    let databasePath: String

    init(databasePath: String) {
        self.databasePath = databasePath
    }

    /// Bytes on disk of the database file and its write-ahead log (0 for a missing file).
    func databaseBytes() -> Int {
        [databasePath, databasePath + "-wal"].reduce(0) { total, path in
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
            return total + (size ?? 0)
        }
    }
}
