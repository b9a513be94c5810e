import Foundation
import Synchronization

/// Writes forwarded exchanges as file mocks (record mode), so that the same request finds them
/// again: the body at the first name ``FileMockDirectory/candidates(target:accept:)`` gives, its
/// status and headers in the sidecar. Rules: `docs/files.md#recording`.
///
/// Each file is written whole to a temporary file in the same directory and renamed over the old
/// one, so a reader never sees a mix and a shorter body never keeps a longer one's tail; the two
/// renames of one recording happen under one lock, so concurrent recordings of one path never
/// pair one's body with the other's sidecar.
///
/// Files are keyed by path and any method replays them, so a file recorded from a `GET` (or one
/// without a recorded method: hand-written, or recorded before methods were kept) is replaced
/// only by a `GET`'s answer: a `POST` to the same path answered 501 must not turn a good `GET`
/// recording into the 501. Other methods record where no such file exists, and replace each
/// other's recordings.
public final class FileMockRecorder: Sendable {
    public let directory: FileMockDirectory
    private let renames = Mutex(0)

    /// Response fields not recorded: per-connection and framing fields, `Content-Encoding` (the
    /// body is stored decoded) and `Date` (a replay is sent now). Lowercased.
    public static let droppedHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "content-encoding", "date",
    ]

    public init(directory: FileMockDirectory) {
        self.directory = directory
    }

    /// Records one exchange and returns the body file's absolute path.
    /// - Parameters:
    ///   - method: the request's method, kept in the sidecar as `recordedMethod`.
    ///   - target: the request-target as received.
    ///   - accept: the request's `Accept` value, which picks the extension of a path without one.
    ///   - body: the decoded response body.
    /// - Throws: ``FileMockError/cannotRecord(path:reason:)`` when the target is refused, a
    ///   directory stands where the file goes (or a file where a directory must), the path would
    ///   leave the directory through a symlink, or the system cannot write;
    ///   ``FileMockError/keptGETRecording(path:method:)`` when `method` is not `GET` and the file
    ///   holds a `GET`'s recording (nothing is written).
    @discardableResult
    public func record(
        method: String, target: String, accept: String?, status: Int, headers: [(name: String, value: String)], body: [UInt8]
    ) throws(FileMockError) -> String {
        guard let name = directory.candidates(target: target, accept: accept).first else {
            throw .cannotRecord(path: target, reason: "the request-target does not map to a file name")
        }
        let parent = try makeParent(of: name)
        let path = parent + "/" + (name.split(separator: "/").last.map(String.init) ?? name)
        if FileMockDirectory.isDirectory(path) { throw .cannotRecord(path: path, reason: "a directory has that name") }
        let sidecar = FileMockSidecar(
            status: status, headers: headers.filter { !Self.droppedHeaders.contains($0.name.lowercased()) },
            recordedMethod: method)
        if method != "GET", Self.holdsGETRecording(path) { throw .keptGETRecording(path: path, method: method) }
        let bodyTemp = try writeTemporary(Data(body), in: parent)
        let sidecarTemp = try writeTemporary(sidecar.json, in: parent)
        try renames.withLock { _ throws(FileMockError) in
            // Checked again where the renames are serialised: a GET recorded meanwhile wins.
            if method != "GET", Self.holdsGETRecording(path) {
                unlink(bodyTemp)
                unlink(sidecarTemp)
                throw .keptGETRecording(path: path, method: method)
            }
            try Self.rename(bodyTemp, to: path)
            try Self.rename(sidecarTemp, to: path + FileMockSidecar.suffix)
        }
        return path
    }

    /// Whether the file at `path` exists and only a `GET` may replace it: its sidecar names
    /// `GET`, or names no method (a hand-written file, an older recording), or is unreadable.
    private static func holdsGETRecording(_ path: String) -> Bool {
        guard access(path, F_OK) == 0 else { return false }
        let sidecarPath = path + FileMockSidecar.suffix
        guard let json = FileManager.default.contents(atPath: sidecarPath),
              let sidecar = try? FileMockSidecar(json: json, path: sidecarPath),
              let method = sidecar.recordedMethod else { return true }
        return method == "GET"
    }

    /// Creates the directories above `name` inside the root and returns the last one, resolved.
    private func makeParent(of name: String) throws(FileMockError) -> String {
        var current = directory.root
        for segment in name.split(separator: "/").dropLast() {
            let next = current + "/" + segment
            if !FileMockDirectory.isDirectory(next), mkdir(next, 0o755) != 0, errno != EEXIST {
                throw .cannotRecord(path: next, reason: String(cString: strerror(errno)))
            }
            guard let resolved = directory.confined(String(next.dropFirst(directory.root.count + 1))),
                  FileMockDirectory.isDirectory(resolved) else {
                throw .cannotRecord(path: next, reason: "not a directory inside the mocks directory")
            }
            current = resolved
        }
        return current
    }

    private func writeTemporary(_ data: Data, in parent: String) throws(FileMockError) -> String {
        let ticket = renames.withLock { count in count += 1; return count }
        let path = "\(parent)/.catbird-recording-\(getpid())-\(ticket).tmp"
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw .cannotRecord(path: path, reason: "\(error.localizedDescription)")
        }
        return path
    }

    private static func rename(_ from: String, to: String) throws(FileMockError) {
        guard Foundation.rename(from, to) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(from)
            throw .cannotRecord(path: to, reason: reason)
        }
    }
}
