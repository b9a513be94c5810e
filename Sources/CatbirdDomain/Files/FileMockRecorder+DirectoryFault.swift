import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FileMockRecorder {
    /// Why recordings into the mocks directory fail for the directory's own sake, and since when:
    /// it cannot be written (a read-only file system, an immutable folder, no permission) or
    /// has less than ``DirectoryFault/leastFreeBytes`` free. Health answers 503 with it
    /// (docs/files.md#recording) until a recording is written again, or the directory takes
    /// writes again when health looks (tester finding tester52a-F6: health said `ok` while every
    /// recording of a job failed on a read-only or full disk).
    public struct DirectoryFault: Sendable, Equatable {
        /// `the mocks directory /m cannot be written (Read-only file system): …`.
        public var reason: String
        public var since: Date

        /// Free bytes under which a failed recording is put down to a full disk: 1 MiB.
        static let leastFreeBytes: UInt64 = 1 << 20
    }

    /// The fault, when the directory cannot take a recording as looked at now: not writable
    /// (`access(2)` with `W_OK`), or less than ``DirectoryFault/leastFreeBytes`` free (`statvfs`).
    /// Nil when it can.
    static func directoryFault(of root: String) -> String? {
        if access(root, W_OK) != 0 {
            return "the mocks directory \(root) cannot be written (\(String(cString: strerror(errno))))"
        }
        var status = statvfs()
        if statvfs(root, &status) == 0, UInt64(status.f_bavail) * UInt64(status.f_frsize) < DirectoryFault.leastFreeBytes {
            return "the mocks directory \(root) has \(UInt64(status.f_bavail) * UInt64(status.f_frsize)) bytes free (its disk is full)"
        }
        return nil
    }

    /// Notes how a recording ended: written (no fault any more), or refused as
    /// ``FileMockError/cannotRecord(path:reason:)`` while the directory cannot take one (the
    /// fault, its time kept from the first such failure).
    func noteRecording(written: Bool) {
        guard !written else {
            directoryFaultState.withLock { $0 = nil }
            return
        }
        guard let why = Self.directoryFault(of: directory.root) else { return }
        directoryFaultState.withLock { state in
            if state == nil {
                state = DirectoryFault(
                    reason: why + ": every recording fails (each journaled with the problem `not recorded: …` and counted in "
                        + "catbird_recordings_failed_total), while requests are still forwarded and answered; this ends once a "
                        + "recording is written or the directory takes writes again",
                    since: Date())
            }
        }
    }

    /// The fault health reports, or nil: one noted by a failed recording that the directory
    /// still shows (looked at again now, so that health recovers without a new recording).
    public func currentDirectoryFault() -> DirectoryFault? {
        guard directoryFaultState.withLock({ $0 }) != nil, Self.directoryFault(of: directory.root) == nil else {
            return directoryFaultState.withLock { $0 }
        }
        noteRecording(written: true)  // it takes writes again
        return nil
    }
}
