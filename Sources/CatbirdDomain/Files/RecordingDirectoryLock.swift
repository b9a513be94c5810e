import Foundation
import Synchronization

/// The lock that keeps the renames of one recording together across processes: an exclusive
/// `flock(2)` on the mocks directory itself (no file of its own), taken by every Catbird
/// recording into that directory for the renames of one recording (``FileMockRecorder``'s
/// `withRenames`), after its in-process lock (a `flock` is held by an open file description,
/// not a thread, so it cannot tell two threads of one process apart).
///
/// Two Catbirds recording one path into one directory (a shared volume under several nodes,
/// two jobs on one checkout) could otherwise rename one's body and the other's sidecar into
/// place, a pair replay would serve for good (tester finding tester23a-F6). Rules:
/// `docs/files.md#recording`.
final class RecordingDirectoryLock: Sendable {
    /// The directory locked (the mocks directory, resolved).
    let path: String
    /// Set when a recording waited the whole ``patience`` for another process's hold, cleared
    /// when the lock is taken again: meanwhile a recording tries once and fails at once, so that
    /// recordings queued behind a stuck holder fail one after another without waiting 2 s each
    /// (tester finding tester40a-F5: eight waited 2, 4, … 16 s in turn, and another tenant's
    /// answer, given by its upstream at once, reached its client after 17.7 s).
    private let stuck = Mutex(false)

    init(path: String) {
        self.path = path
    }
    /// How long a recording waits for another process's hold before it fails: 2 s (a recording
    /// holds it for a few renames, microseconds to milliseconds).
    static let patience: Duration = .seconds(2)
    /// How long it sleeps between two tries while another process holds the lock, in
    /// microseconds: 2,000 (2 ms).
    static let retryMicroseconds: UInt32 = 2_000

    /// Runs `body` holding the lock: waits up to ``patience`` for another process's hold.
    /// - Throws: ``FileMockError/cannotRecord(path:reason:)`` when the directory cannot be
    ///   opened, or another process held the lock for the whole ``patience``; what `body` throws.
    func withLock<T>(_ body: () throws(FileMockError) -> T) throws(FileMockError) -> T {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno
            guard reason != ENOENT, reason != ENOTDIR else {
                throw .cannotRecord(
                    path: path, reason: "the mocks directory does not exist any more (it did at start-up): make it again to go on recording")
            }
            throw .cannotRecord(path: path, reason: "cannot open the mocks directory to lock it: \(String(cString: strerror(reason)))")
        }
        defer { close(descriptor) }  // closing the descriptor also releases the lock
        let wasStuck = stuck.withLock { $0 }
        let deadline = ContinuousClock.now + (wasStuck ? .zero : Self.patience)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            guard reason == EWOULDBLOCK || reason == EINTR else {
                throw .cannotRecord(path: path, reason: "cannot lock the mocks directory (flock): \(String(cString: strerror(reason)))")
            }
            guard ContinuousClock.now < deadline else {
                stuck.withLock { $0 = true }
                throw .cannotRecord(
                    path: path,
                    reason: "another process held the mocks directory's lock (flock) for \(Self.patience.components.seconds) s"
                        + (wasStuck ? " at an earlier recording's try and still holds it" : "")
                        + ": a recording's renames take milliseconds, so a process (another Catbird recording here?) is stuck holding it")
            }
            usleep(Self.retryMicroseconds)
        }
        if wasStuck { stuck.withLock { $0 = false } }
        return try body()
    }
}
