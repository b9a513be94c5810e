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
    /// The database file's size as the server's open descriptor of it sees it (its
    /// ``CatbirdStorage/DatabaseFileLock/currentSize()``), or nil when unknown.
    let openFileSize: @Sendable () -> Int64?

    init(databasePath: String, openFileSize: @escaping @Sendable () -> Int64? = { nil }) {
        self.databasePath = databasePath
        self.openFileSize = openFileSize
    }

    /// Bytes on disk of the database file and its write-ahead log (0 for a missing `-wal`).
    /// The database file is measured through the server's open descriptor, so a file deleted
    /// or moved under the server, which it still holds and fills, still counts (tester finding
    /// tester39b-F4: the gauge fell by the file's size after `rm`, 23 descriptors still open on
    /// it); its path is read only when that is unknown.
    func databaseBytes() -> Int {
        let database = openFileSize().map { Int($0) } ?? Self.size(atPath: databasePath)
        return database + Self.size(atPath: databasePath + "-wal")
    }

    private static func size(atPath path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
