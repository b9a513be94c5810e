import CatbirdDomain
import CatbirdHTTP
import CatbirdStorage
import CatbirdSupport
import Foundation

/// Health and version (the web page is ``WebPageRoutes``):
/// - `GET /catbird/api/health` → `200 {"status":"ok"}` when the database answers, its last
///   write went through and no corruption found since start-up remains, else 503
///   ``StorageHealth`` (same for every tenant, one small read on health's own thread,
///   ``ControlLane/health``: it may wait for a read connection, which a worker must not, and
///   never waits behind a tenant's control calls; while a corruption is reported,
///   also a `PRAGMA quick_check` at most once per ``corruptionRecheckInterval``; while a full
///   disk or a write error is, one write tried in the background at most once per
///   ``writeRecheckInterval``, which ends it once it commits; while checkpoints fail, one
///   checkpoint tried so, which ends it once it succeeds); also 503 while the `--mocks-dir`
///   directory is gone (removed or renamed under the server; tester28b-F1's leftover), in
///   record mode too (tester31a-F3);
/// - `GET /catbird/api/info` → `{"version", "domain", "github"}` (Catbird 0.11 shape, docs/protocol.md#tenants-and-health)
///   plus `"retention"` (``RetentionInfo``, docs/operations.md#retention);
/// - `GET /catbird/version` → `Version: x.y.z` (text).
enum InfoRoutes {
    /// How often health may re-read the whole file to see whether a corruption is gone.
    static let corruptionRecheckInterval: Duration = .seconds(1)
    /// How often health may try a write (or a checkpoint) to see whether a full disk or a write
    /// error (or failing checkpoints) is gone.
    static let writeRecheckInterval: Duration = .seconds(1)

    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            // The probes read no query and ignore one (a monitor's cache-buster, a scrape's
            // `params:`): refusing it would mark a healthy node down (try7a F6). They change
            // nothing, so a misread parameter cannot make them do more than asked.
            Route("GET", "/catbird/api/health", query: nil, lane: .health) { _ in
                dependencies.storageFaults.recheckCorruption(on: dependencies.reader, notMoreOftenThan: corruptionRecheckInterval)
                dependencies.storageFaults.recheckWriting(on: dependencies.writer, notMoreOftenThan: writeRecheckInterval)
                dependencies.storageFaults.recheckCheckpoint(
                    on: dependencies.writer, notMoreOftenThan: writeRecheckInterval, report: { CatbirdServer.logCheckpoint($0, log: dependencies.log) })
                try? dependencies.storageFaults.checkFile()  // deleted or replaced: recorded, so `current` has it (T13-F8)
                if let fault = dependencies.storageFaults.current {
                    return StorageHealth.degraded(
                        fault, durability: dependencies.settings.durability, writerFailure: dependencies.journal.writerFailure)
                }
                if let failure = dependencies.journal.writerFailure {
                    return StorageHealth.degraded(journalWriter: failure, durability: dependencies.settings.durability)
                }
                let recorder = dependencies.upstream?.recorder
                let gone = dependencies.files?.directory.rootGone() ?? recorder?.directory.rootGone(recording: true)
                if let since = dependencies.mocksDirectoryGone.since(gone: gone != nil), let gone {
                    return StorageHealth.degraded(mocksDirectory: gone, since: since, recording: recorder != nil)
                }
                if let fault = recorder?.currentDirectoryFault() {
                    return JSONBody.response(StorageHealth(reason: fault.reason, since: Timestamp.string(from: fault.since)), status: 503)
                }
                do {
                    try dependencies.tenants.checkReadable()
                    return JSONBody.response(["status": "ok"])
                } catch {
                    dependencies.log.error("health check failed: \(error)")
                    if let sqlite = error as? SQLiteError, let reason = sqlite.environmentalReason {
                        return StorageHealth.degraded(reason: reason, since: Date(), durability: dependencies.settings.durability)
                    }
                    throw APIError(status: 503, reason: "database unavailable")
                }
            },
            Route("GET", "/catbird/api/info") { _ in
                JSONBody.response(ServerInfo(
                    version: CatbirdServer.version, domain: dependencies.origin.url,
                    github: "https://github.com/RedMadRobot/catbird",
                    retention: RetentionInfo(policy: dependencies.settings.retention, pruned: dependencies.pruner.pruned)))
            },
            Route("GET", "/catbird/version", query: nil) { _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain; charset=utf-8"],
                    body: Array("Version: \(CatbirdServer.version)".utf8))
            },
        ]
    }
}
