import CatbirdMatching
import CatbirdSupport
import Foundation
import Synchronization

/// Writes forwarded exchanges as file mocks (record mode), so that the same request finds them
/// again: the body at the first name ``FileMockDirectory/candidates(target:accept:)`` gives, its
/// status and headers in the sidecar. Rules: `docs/files.md#recording`.
///
/// Each file is written whole to a temporary file in the same directory
/// (``RecordingTemporaryFile``) and renamed over the old one, so a reader never sees a mix and a
/// shorter body never keeps a longer one's tail; the two renames of one recording happen under
/// one lock, this process's and the mocks directory's `flock` (``RecordingDirectoryLock``, for
/// other Catbirds recording into it), so concurrent recordings of one path never pair one's body
/// with the other's sidecar.
/// An intent written before the renames (``RecordingIntent``) lets the next start finish a
/// recording a `kill -9` cut short between them (tester finding tester20a-F1).
///
/// A recording is all or nothing (tester finding T12-F2): every name it writes, the body's and
/// the sidecar's, is checked before anything is written, and when a write fails anyway what it
/// wrote is taken back (the temporary files removed, the body it renamed into place replaced by
/// the one that was there, or removed), so replay never serves a body without its sidecar.
///
/// Files are keyed by path and any method replays them, so a file recorded from a `GET` (or one
/// without a recorded method: hand-written, or recorded before methods were kept) is replaced
/// only by a `GET`'s answer: a `POST` to the same path answered 501 must not turn a good `GET`
/// recording into the 501. Other methods record where no such file exists, and replace each
/// other's recordings.
public final class FileMockRecorder: Sendable {
    public let directory: FileMockDirectory
    /// Serialises the renames of all recordings and the making of their directories
    /// (`FileMockRecorder+Renames.swift`); holds the count that numbers temporary files.
    /// Taken through ``withRenames(_:)``, which adds the other processes' lock, except to number
    /// a temporary file.
    let renames = Mutex(0)
    /// Keeps the renames of one recording together across processes recording into the same
    /// directory (tester finding tester23a-F6).
    let directoryLock: RecordingDirectoryLock
    /// Answers that could not be written (``FileMockError/cannotRecord(path:reason:)``), or
    /// could not be replayed as received (``FileMockError/cannotReplay(target:reason:)``), since
    /// start; `/catbird/metrics` reports it as `catbird_recordings_failed_total`.
    public let failures = Atomic<Int>(0)
    /// ``DirectoryFault``, as ``noteRecording(written:)`` last saw it.
    let directoryFaultState = Mutex<DirectoryFault?>(nil)

    /// Response fields not recorded: per-connection and framing fields, and `Date` (a replay is
    /// sent now). `Content-Encoding` is kept: the body is stored as the upstream encoded it.
    /// Fields with an empty value are not recorded either (libmicrohttpd cannot send them; the
    /// journal drops them too). Lowercased.
    public static let droppedHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "date",
    ]

    /// The fields of `headers` a recording's sidecar holds: all but ``droppedHeaders``, those
    /// with an empty value, and a repeat of a field a response has once
    /// (``CatbirdMatching/ResponseRules/singletonFields``: `Content-Type`, `ETag`, …) whose value
    /// is byte for byte an earlier one's, in order. Such a repeat (a backend behind a proxy that
    /// sets the field again) says nothing more, and clients read the one value; kept, it made the
    /// answer unrecordable (tester finding tester40a-F7). Repeats that differ are kept, and refused.
    public static func sidecarFields(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var singletons: [String: [String]] = [:]
        return headers.filter { field in
            let lowered = field.name.lowercased()
            guard !field.value.isEmpty, !droppedHeaders.contains(lowered) else { return false }
            guard ResponseRules.singletonFields[lowered] != nil else { return true }
            if singletons[lowered, default: []].contains(where: { $0.hasSameBytes(as: field.value) }) { return false }
            singletons[lowered, default: []].append(field.value)
            return true
        }
    }

    /// The request-target each file was last recorded from in this run and the tenant whose
    /// request it was, by the file's path, and the paths a replacement was logged for
    /// (``replacedTarget(path:target:tenant:)``). Paths are keyed by their bytes, as the file
    /// system names files (``ExactString``): by `String`, NFC `/ré` and NFD `/re\u{301}`, or `/K`
    /// and `/\u{212A}`, two files side by side, were one key, and each recording was said to
    /// have replaced the other (tester finding tester39a-F3).
    private let recordedTargets = Mutex((targets: [ExactString: (target: String, tenant: TenantID)](), logged: Set<ExactString>()))
    /// Files whose targets ``recordedTargets`` keeps at most: 10,000 (later ones are not
    /// followed; about 1 MB).
    public static let followedFiles = 10_000

    /// Told, after the rename, that a collection's recording at `from` (and its sidecar) was
    /// moved to `to` (its `index`) to make room for a recording under it: the journal entries
    /// and HAR files that named `from` keep naming it (tester finding tester36a-F6: the move
    /// was reported nowhere). Must not block.
    let movedIntoIndex: (@Sendable (_ from: String, _ to: String) -> Void)?

    /// - Parameter movedIntoIndex: told of each collection moved into its `index` (``movedIntoIndex``).
    public init(directory: FileMockDirectory, movedIntoIndex: (@Sendable (_ from: String, _ to: String) -> Void)? = nil) {
        self.directory = directory
        self.directoryLock = RecordingDirectoryLock(path: directory.root)
        self.movedIntoIndex = movedIntoIndex
    }

    /// Runs `body` with the renames serialised in this process (``renames``, its count passed
    /// in) and across processes recording into this directory (``directoryLock``).
    /// - Throws: what `body` throws; ``FileMockError/cannotRecord(path:reason:)`` when another
    ///   process held the directory's lock for ``RecordingDirectoryLock/patience``.
    func withRenames<T: Sendable>(_ body: (inout Int) throws(FileMockError) -> T) throws(FileMockError) -> T {
        try renames.withLock { count throws(FileMockError) -> T in
            try directoryLock.withLock { () throws(FileMockError) -> T in try body(&count) }
        }
    }

    /// Notes that the file at `path` was just recorded from `target`, a request of `tenant`'s,
    /// and, when it was recorded earlier in this run from a request-target that is not the same
    /// resource (``RequestTargetIdentity``: `%41` and `A` are one, `%2F` and `/` are not), says
    /// so: without `--files-with-query` the query is not part of the name, so `?page=2` replaces
    /// `?page=1` (try9a F15): `'…/api/list.json' held the answer to /api/list?page=1, replaced by
    /// this answer to /api/list?page=2: the query is not part of a file name; give
    /// --files-with-query to keep both`; any other pair of targets that name one file (`%2F` in
    /// the path decoded to `/`, an empty query, an `Accept` extension: T11-F1) ends
    /// `: both request-targets name this file (docs/files.md#request-to-file)`. The earlier
    /// target is named only when it was `tenant`'s own request; another tenant's is
    /// `another tenant's request`, as its request-target (a query can hold a token) is that
    /// tenant's journal data, never shown to another (tester finding tester23a-F2). Also says
    /// whether this is the first such replacement of that file in this run (the caller logs that
    /// one, with both targets: the log is the operator's). Nil otherwise.
    public func replacedTarget(path: String, target: String, tenant: TenantID) -> (problem: String, logged: String, first: Bool)? {
        recordedTargets.withLock { state in
            let key = ExactString(path)
            let previous = state.targets[key]
            if previous != nil || state.targets.count < Self.followedFiles { state.targets[key] = (target, tenant) }
            guard let previous, RequestTargetIdentity(previous.target) != RequestTargetIdentity(target) else { return nil }
            let onlyTheQuery = !directory.includesQuery
                && RequestTargetIdentity(Self.withoutQuery(previous.target)) == RequestTargetIdentity(Self.withoutQuery(target))
            let why = onlyTheQuery
                ? "the query is not part of a file name; give --files-with-query to keep both"
                : "both request-targets name this file (docs/files.md#request-to-file)"
            func sentence(naming earlier: String) -> String {
                "'\(path)' held the answer to \(earlier), replaced by this answer to \(target.utf8Prefix(200)): " + why
            }
            let named = sentence(naming: previous.target.utf8Prefix(200))
            let problem = previous.tenant == tenant ? named : sentence(naming: "another tenant's request")
            return (problem, named, state.logged.insert(key).inserted)
        }
    }

    /// A request-target without its query (up to its first `?`).
    private static func withoutQuery(_ target: String) -> String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    /// Records one exchange and returns the body file's absolute path.
    /// - Parameters:
    ///   - method: the request's method, kept in the sidecar as `recordedMethod`.
    ///   - target: the request-target as received.
    ///   - accept: the request's `Accept` value, which picks the extension of a path without one.
    ///   - body: the response body as received (encoded as its `Content-Encoding` says).
    ///   - fieldsNotUTF8: names of header fields whose bytes were not UTF-8 (held repaired in
    ///     `headers`).
    /// - Throws: ``FileMockError/cannotReplay(target:reason:)`` when replay could not serve the
    ///   answer as received: a field in `fieldsNotUTF8`, or a status or field that
    ///   ``CatbirdMatching/ResponseRules`` refuses for a file mock (a status outside 200...599);
    ///   ``FileMockError/cannotRecord(path:reason:)`` when the target is refused, a name
    ///   segment is longer than ``maxSegmentBytes`` or the body file's name than
    ///   ``maxFileNameBytes``, a file with an extension stands where a directory must, the path
    ///   would leave the directory through a symlink, or the system cannot write (nothing of
    ///   the recording is left then); ``FileMockError/keptGETRecording(path:method:)`` when
    ///   `method` is not `GET` and the file holds a `GET`'s recording (nothing is written).
    ///
    /// A collection and its items both record (`docs/files.md#recording`): `/api/users` goes to
    /// `api/users/index` when `api/users/` is a directory, and a recording of `/api/users/1`
    /// moves a file `api/users` (no extension) and its sidecar to `api/users/index` first; when
    /// both are recorded at once and the item's made the name a directory after this recording
    /// chose it, the body goes to `api/users/index` (tester finding tester20a-F2).
    @discardableResult
    public func record(
        method: String, target: String, accept: String?, status: Int, headers: [(name: String, value: String)], body: [UInt8],
        fieldsNotUTF8: [String] = []
    ) throws(FileMockError) -> String {
        try stage(method: method, target: target, accept: accept, status: status, headers: headers, body: body, fieldsNotUTF8: fieldsNotUTF8)
            .place()
    }

    /// ``record(method:target:accept:status:headers:body:fieldsNotUTF8:)`` up to its renames:
    /// every check made and both files written under temporary names; ``PendingRecording/place()``
    /// renames them into place, ``PendingRecording/discard()`` removes them. With
    /// `--durability strict` a recording is placed only once its journal entry is committed, and
    /// discarded when the answer is withheld (tester finding tester26a-F8: the upstream's 200 was
    /// written while the app got the 503 and the journal had no row). Throws as `record` does.
    public func stage(
        method: String, target: String, accept: String?, status: Int, headers: [(name: String, value: String)], body: [UInt8],
        fieldsNotUTF8: [String] = []
    ) throws(FileMockError) -> PendingRecording {
        try counted { () throws(FileMockError) -> PendingRecording in
            let kept = Self.sidecarFields(headers)
            try Self.checkReplayable(target: target, status: status, headers: kept, bodyLength: body.count, fieldsNotUTF8: fieldsNotUTF8)
            return try write(method: method, target: target, accept: accept, status: status, headers: kept, body: body)
        }
    }

    /// A recording whose files are written under temporary names, not yet renamed into place
    /// (``stage(method:target:accept:status:headers:body:fieldsNotUTF8:)``).
    public struct PendingRecording: Sendable {
        let recorder: FileMockRecorder
        let bodyTemp: String
        let sidecarTemp: String
        /// The body file's path as planned; ``place()`` answers where it went (`<path>/index`
        /// when the name became a directory meanwhile, tester20a-F2).
        public let path: String
        let parent: String
        let takesIndex: Bool
        let method: String

        /// Renames the files into place and returns the body file's path.
        /// - Throws: ``FileMockError``: the directory's lock not taken, a `GET` recording kept,
        ///   a rename failed; nothing of this recording is left then.
        public func place() throws(FileMockError) -> String {
            try recorder.counted { () throws(FileMockError) -> String in
                do throws(FileMockError) {
                    return try recorder.renameIntoPlace(
                        body: bodyTemp, sidecar: sidecarTemp, path: path, in: parent, takesIndex: takesIndex, method: method)
                } catch {
                    // Removed here when not renamed: a GET recording kept, or the directory's lock not
                    // taken (another process held it); a failed rename removed them already (unlink
                    // then finds nothing).
                    discard()
                    throw error
                }
            }
        }

        /// Removes the temporary files: nothing of this recording is written.
        public func discard() {
            unlink(bodyTemp)
            unlink(sidecarTemp)
        }
    }

    /// Runs `body`, counting in ``failures`` a recording it could not write or that could not be
    /// replayed.
    private func counted<T>(_ body: () throws(FileMockError) -> T) throws(FileMockError) -> T {
        do {
            let result = try body()
            noteRecording(written: true)
            return result
        } catch {
            switch error {
            case .cannotRecord:
                failures.add(1, ordering: .relaxed)
                noteRecording(written: false)
            case .cannotReplay: failures.add(1, ordering: .relaxed)
            default: break
            }
            throw error
        }
    }

    /// Throws ``FileMockError/cannotReplay(target:reason:)`` when a file mock of this answer
    /// (`headers` as the sidecar would hold them) could not be served as the upstream sent it.
    private static func checkReplayable(
        target: String, status: Int, headers: [(name: String, value: String)], bodyLength: Int, fieldsNotUTF8: [String]
    ) throws(FileMockError) {
        if let name = fieldsNotUTF8.first {
            throw .cannotReplay(
                target: target,
                reason: "the upstream's header field \(JSONText.shortString(name)) is not UTF-8, and a sidecar holds header "
                    + "values as text: a replay would send other bytes (each invalid byte as U+FFFD, as this answer went out)")
        }
        do throws(ResponseRules.Violation) {
            try ResponseRules.check(status: status, headers: headers, bodyLength: bodyLength, source: .file)
        } catch {
            throw .cannotReplay(target: target, reason: "a file mock of this answer could not be served: \(error.reason)")
        }
    }

    private func write(
        method: String, target: String, accept: String?, status: Int, headers: [(name: String, value: String)], body: [UInt8]
    ) throws(FileMockError) -> PendingRecording {
        let named = FileMockName.named(target: target, includesQuery: directory.includesQuery)
        guard case let .success(fileName) = named, var name = directory.candidates(fileName, accept: accept).first else {
            let why = if case let .failure(refusal) = named { refusal.reason } else { "it names no file" }
            throw .cannotRecord(path: target, reason: "the request-target does not map to a file name: \(why)")
        }
        if let first = fileName.segments.first, first.lowercased() == "catbird" {
            // `//catbird/api/mocks`, `/./catbird/…`, `/%63atbird/…`: no control path, so forwarded,
            // but a replay of its file would answer a control call spelled so (a base URL ending
            // in `/`) with a 2xx while nothing was done (tester finding tester40a-F4).
            throw .cannotRecord(
                path: directory.root + "/" + name,
                reason: "its file would lie under catbird/, and a replay would answer a control call whose path is spelled "
                    + "otherwise (//catbird/…, /./catbird/…, /%63atbird/…) from it, as if the call had been made; control paths "
                    + "start with exactly /catbird/")
        }
        if let long = fileName.segments.first(where: { $0.utf8.count > Self.maxSegmentBytes }) {
            throw .cannotRecord(
                path: directory.root + "/" + name,
                reason: "a name segment is \(long.utf8.count) bytes long; the file system takes at most \(Self.maxSegmentBytes)")
        }
        let shownPath = directory.root + "/" + name.utf8Prefix(200) + "…"
        if fileName.segments.count > Self.maxSegments {
            throw .cannotRecord(
                path: shownPath,
                reason: "the path has \(fileName.segments.count) segments; record mode writes at most \(Self.maxSegments)")
        }
        if directory.root.utf8.count + 1 + name.utf8.count + Self.longestSuffix > Self.maxPathBytes {
            throw .cannotRecord(
                path: shownPath,
                reason: "the file's path would be \(directory.root.utf8.count + 1 + name.utf8.count) bytes long; "
                    + "the file system takes at most \(Self.maxPathBytes), its sidecar's name included")
        }
        if name == fileName.path, let index = fileName.directoryIndex, let existing = directory.confined(name),
           FileMockDirectory.isDirectory(existing) {
            name = index.path
        }
        // The sidecar's name is the body file's and 22 bytes: a 234-255 byte name wrote the body,
        // then failed on the sidecar and left the body to replay as a 200 without them (T12-F2).
        let fileBytes = (name.split(separator: "/").last ?? Substring(name)).utf8.count
        if fileBytes + FileMockSidecar.suffix.utf8.count > Self.maxSegmentBytes {
            throw .cannotRecord(
                path: directory.root + "/" + name,
                reason: "the file's name is \(fileBytes) bytes long and its sidecar's \(fileBytes + FileMockSidecar.suffix.utf8.count); "
                    + "the file system takes at most \(Self.maxSegmentBytes) (\(Self.maxFileNameBytes) for the file's name, its extension included)")
        }
        let parent = try makeParent(of: name)
        let path = parent + "/" + (name.split(separator: "/").last.map(String.init) ?? name)
        let takesIndex = name == fileName.path && fileName.directoryIndex != nil
        // A name that takes an index may have become a directory since the check above (its
        // item recorded at once): renameIntoPlace puts the body in its index then (the
        // clean-clone CI of 3fcf094: `/var/r16` refused with this reason, 1 of 20 pairs).
        if !takesIndex && FileMockDirectory.isDirectory(path) {
            throw .cannotRecord(path: path, reason: "a directory has that name (a name with an extension has no index inside)")
        }
        let sidecar = FileMockSidecar(status: status, headers: headers, recordedMethod: method)
        if method != "GET", Self.holdsGETRecording(path) { throw .keptGETRecording(path: path, method: method) }
        let bodyTemp = try writeTemporary(Data(body), in: parent, for: path)
        let sidecarTemp: String
        do {
            sidecarTemp = try writeTemporary(sidecar.json, in: parent, for: path + FileMockSidecar.suffix)
        } catch {
            unlink(bodyTemp)
            throw error
        }
        return PendingRecording(
            recorder: self, bodyTemp: bodyTemp, sidecarTemp: sidecarTemp, path: path, parent: parent, takesIndex: takesIndex, method: method)
    }

    /// Renames a recording's temporary `bodyTemp` and `sidecarTemp` (in `parent`) to `path`
    /// (its `index` when `takesIndex` and it became a directory) and its sidecar's name, under
    /// ``withRenames(_:)``; answers the body's final path.
    /// - Throws: ``FileMockError``: the lock not taken, a `GET` recording kept, a rename failed.
    fileprivate func renameIntoPlace(
        body bodyTemp: String, sidecar sidecarTemp: String, path: String, in parent: String, takesIndex: Bool, method: String
    ) throws(FileMockError) -> String {
        try withRenames { count throws(FileMockError) -> String in
            // A recording of an item under this name made it a directory since it was checked
            // above (the two recorded at once): the body goes to its index, as it would have
            // had the item come first (tester finding tester20a-F2).
            let last = String(path[path.index(after: path.lastIndex(of: "/")!)...])
            let target = takesIndex && Self.isRealDirectory(path) ? last + "/index" : last
            // Checked again where the renames are serialised: a GET recorded meanwhile wins.
            if method != "GET", Self.holdsGETRecording(parent + "/" + target) {
                throw .keptGETRecording(path: parent + "/" + target, method: method)
            }
            try Self.renamePair(
                body: bodyTemp, sidecar: sidecarTemp, to: target, in: parent,
                keepingOldBodyAt: Self.temporaryPath(in: parent, count: &count),
                intent: Self.temporaryPath(in: parent, count: &count, intent: true))
            return parent + "/" + target
        }
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

    /// Longest name segment written, in bytes (`NAME_MAX` of Linux file systems).
    public static let maxSegmentBytes = 255
    /// Longest name of a recorded body file (the last segment, an `Accept` extension included),
    /// in bytes: 233, so that its sidecar's name (``FileMockSidecar/suffix``, 22 bytes more)
    /// fits ``maxSegmentBytes``.
    public static let maxFileNameBytes = maxSegmentBytes - FileMockSidecar.suffix.utf8.count
    /// Most segments of a recorded file's name (directories and the file): 128. A deeper
    /// request path (a client appending segments in a loop, a fuzzer) is not recorded: each
    /// level is a directory made and checked, and 1,000 of them took 50 s (try7b F5).
    static let maxSegments = 128
    /// Longest path of a recorded file, its sidecar's name included, in bytes (`PATH_MAX` of
    /// Linux, the terminating NUL excluded): 4,095.
    static let maxPathBytes = 4095
    /// The longest name added to a body file's path: the sidecar's suffix, or `/index` and it.
    private static let longestSuffix = "/index".utf8.count + FileMockSidecar.suffix.utf8.count

    /// Carries the note of which request-target the file at `old` was recorded from
    /// (``replacedTarget(path:target:tenant:)``) to `new`, where ``moveIntoIndex(_:parked:intent:)`` moved it: a
    /// recording of `/coll3/index` after the move silently replaced `/coll3`'s (T15B-F17).
    func movedTarget(from old: String, to new: String) {
        recordedTargets.withLock { state in
            guard let target = state.targets.removeValue(forKey: ExactString(old)) else { return }
            state.targets[ExactString(new)] = target
            if state.logged.remove(ExactString(old)) != nil { state.logged.insert(ExactString(new)) }
        }
    }
}
