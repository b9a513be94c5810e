import CatbirdSupport
import Foundation

/// What a recording is about to rename, written to its own temporary file
/// (`.catbird-recording-<pid>-<n>.intent.tmp`, ``RecordingTemporaryFile``) in the directory of
/// its temporary files before the first rename, and removed after the last. A process killed
/// between the renames (`kill -9`) leaves it behind, and the next start-up sweep finishes the
/// recording from it (``recover(in:)``), so a body is never left beside a sidecar it was not
/// recorded with, and a body's only copy is never deleted as a stale temporary file.
///
/// Tester finding tester20a-F1: a recording is two renames (the body, then its sidecar), and a
/// collection's move into its `index` parks the body under a temporary name; a kill between
/// them left the new body beside the old sidecar (a 500 replayed as a 200 with no
/// `Content-Type`), and the sweep deleted the old body's hard-link backup, the new sidecar and
/// the parked collection body, the only copies. Rules: `docs/files.md#recording`.
///
/// Names are relative to the intent's directory; each file is named with its inode (`lstat`,
/// taken once written), so recovery renames only the files this recording made and finds where
/// the recording stopped by what is where.
enum RecordingIntent: Equatable {
    /// A file this recording wrote under a temporary name, and its inode.
    struct Staged: Equatable {
        var name: String
        var inode: UInt64
    }

    /// A recording's two renames, in order: `body` to `target` (one name, or `<name>/index` when
    /// the name became a directory meanwhile: tester20a-F2), then `sidecar` to `target`'s
    /// sidecar name; the body at `target` before is hard-linked to `kept` first.
    case pair(target: String, body: Staged, sidecar: Staged, kept: String)
    /// A collection's file `collection` (one name) moved into a directory of that name: renamed
    /// to `parked`, a directory made at its name, `parked` renamed to `index` in it, then the
    /// sidecar (its inode `sidecarInode`; nil when it had none) moved to `index`'s sidecar name.
    case index(collection: String, parked: Staged, sidecarInode: UInt64?)

    /// The intent as the one line of JSON its file holds.
    var json: Data {
        var object: [String: Any]
        switch self {
        case let .pair(target, body, sidecar, kept):
            object = [
                "kind": "pair", "target": target, "body": body.name, "bodyInode": body.inode, "sidecar": sidecar.name,
                "sidecarInode": sidecar.inode, "kept": kept,
            ]
        case let .index(collection, parked, sidecarInode):
            object = ["kind": "index", "collection": collection, "parked": parked.name, "parkedInode": parked.inode]
            if let sidecarInode { object["sidecarInode"] = sidecarInode }
        }
        return ((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
            + Data("\n".utf8)
    }

    /// Reads an intent file's JSON; nil when it is not one (cut short while it was written,
    /// before any rename, or made by hand). Every temporary name must be of process
    /// `processID`'s form and every other name must stay inside the directory (no `.`, `..`,
    /// or empty segment), so an intent committed with a fixture cannot rename anything else.
    init?(json: Data, processID: Int) {
        guard let object = (try? JSONSerialization.jsonObject(with: JSONText.escapingByteOrderMarks(in: json))) as? [String: Any] else { return nil }
        func staged(_ name: String, _ inode: String) -> Staged? {
            guard let file = object[name] as? String, RecordingTemporaryFile.processID(in: file) == processID,
                  !file.contains("/"), let number = (object[inode] as? NSNumber)?.uint64Value else { return nil }
            return Staged(name: file, inode: number)
        }
        switch object["kind"] as? String {
        case "pair":
            guard let target = object["target"] as? String, Self.isInside(target, segments: 2),
                  let body = staged("body", "bodyInode"), let sidecar = staged("sidecar", "sidecarInode"),
                  let kept = object["kept"] as? String, RecordingTemporaryFile.processID(in: kept) == processID, !kept.contains("/")
            else { return nil }
            self = .pair(target: target, body: body, sidecar: sidecar, kept: kept)
        case "index":
            guard let collection = object["collection"] as? String, Self.isInside(collection, segments: 1),
                  let parked = staged("parked", "parkedInode") else { return nil }
            self = .index(collection: collection, parked: parked, sidecarInode: (object["sidecarInode"] as? NSNumber)?.uint64Value)
        default:
            return nil
        }
    }

    /// Whether `name` is 1 to `segments` plain names joined by `/`, none of them a temporary
    /// file's.
    private static func isInside(_ name: String, segments: Int) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return (1...segments).contains(parts.count)
            && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !RecordingTemporaryFile.isTemporary($0) }
    }

    /// What ``recover(in:)`` did.
    enum Recovery: Equatable {
        /// Nothing to do: no rename had happened yet, or all had (the temporary files left are
        /// copies and can go).
        case nothing
        /// The recording was finished or undone; `what` says how, naming the file.
        case done(file: String, what: String)
        /// A step failed (`reason`); the temporary files in `held` may be a body's only copy and
        /// must stay, as must the intent, for a later start to try again.
        case failed(file: String, reason: String, held: [String])
        /// Nothing was renamed or written: the recording's file `file` would be renamed in a
        /// directory outside the mocks directory (`reason`), so the intent and its temporary
        /// files are only removed (tester finding tester26a-F5).
        case refused(file: String, reason: String)
    }

    /// Brings the recording this intent describes, cut short in `directory` (absolute, a real
    /// directory under `root`, the mocks directory resolved), to a whole state (``Recovery``):
    /// - a pair whose body is in place and whose sidecar is not is finished (the new sidecar
    ///   renamed beside it); when the new sidecar is gone, it is undone instead: the kept old
    ///   body put back, or the new body removed when none was there;
    /// - a collection's move is finished: the parked body renamed to `index` in a directory of
    ///   the collection's name (made when missing), then the sidecar moved beside it.
    ///
    /// Every file it renames or writes is in `directory` or in the directory holding the
    /// target, which must resolve (`realpath`) inside `root`, as record mode and file serving
    /// require (`docs/files.md`: no request reads or writes outside the directory); when it
    /// does not (a symlink leading out), nothing is done: ``Recovery/refused(file:reason:)``.
    /// Tester finding tester26a-F5: recovery followed such a symlink and wrote the sidecar
    /// outside the mocks directory.
    func recover(in directory: String, root: String) -> Recovery {
        let (file, holder) = switch self {
        case let .pair(target, _, _, _):
            (directory + "/" + target, target.lastIndex(of: "/").map { directory + "/" + target[..<$0] } ?? directory)
        case let .index(collection, _, _): (directory + "/" + collection, directory + "/" + collection)
        }
        if Self.inode(holder) != nil, !Self.isInside(resolving: holder, root: root) {
            return .refused(file: file, reason: "'\(holder)' leads out of the mocks directory (a symlink)")
        }
        switch self {
        case let .pair(target, body, sidecar, kept):
            let path = directory + "/" + target
            guard Self.inode(path) == body.inode, Self.inode(path + FileMockSidecar.suffix) != sidecar.inode else { return .nothing }
            if Self.inode(directory + "/" + sidecar.name) == sidecar.inode {
                guard rename(directory + "/" + sidecar.name, path + FileMockSidecar.suffix) == 0 else {
                    return .failed(file: path, reason: Self.lastError, held: [sidecar.name, kept])
                }
                return .done(file: path, what: "finished it: the body was in place, its sidecar is put beside it")
            }
            if Self.inode(directory + "/" + kept) != nil {
                guard rename(directory + "/" + kept, path) == 0 else {
                    return .failed(file: path, reason: Self.lastError, held: [kept])
                }
                return .done(file: path, what: "undone: its sidecar was gone, so the body that was there is put back beside its own")
            }
            guard unlink(path) == 0 else { return .failed(file: path, reason: Self.lastError, held: []) }
            return .done(file: path, what: "undone: its sidecar was gone and no body was there before, so its body is removed")
        case let .index(collection, parked, sidecarInode):
            let path = directory + "/" + collection
            let index = path + "/index"
            var moved = false
            if Self.inode(directory + "/" + parked.name) == parked.inode {
                var info = stat()
                if lstat(path, &info) != 0, mkdir(path, 0o755) != 0 {
                    return .failed(file: path, reason: Self.lastError, held: [parked.name])
                }
                guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, Self.inode(index) == nil else {
                    return .failed(file: path, reason: "it is not a directory without an index file any more", held: [parked.name])
                }
                guard rename(directory + "/" + parked.name, index) == 0 else {
                    return .failed(file: path, reason: Self.lastError, held: [parked.name])
                }
                moved = true
            }
            if Self.inode(index) == parked.inode, let sidecarInode, Self.inode(path + FileMockSidecar.suffix) == sidecarInode,
               Self.inode(index + FileMockSidecar.suffix) == nil {
                guard rename(path + FileMockSidecar.suffix, index + FileMockSidecar.suffix) == 0 else {
                    return .failed(file: index, reason: Self.lastError, held: [])
                }
                moved = true
            }
            return moved ? .done(file: index, what: "finished moving the collection's file into its directory's index, its sidecar beside it") : .nothing
        }
    }

    /// Whether `path` resolves (`realpath`, symlinks followed) to `root` or a path inside it
    /// (its bytes start with `root` and a `/`, as ``FileMockDirectory/confined(_:)`` checks).
    private static func isInside(resolving path: String, root: String) -> Bool {
        guard let resolved = FileMockDirectory.realPath(path) else { return false }
        return resolved == root || resolved.utf8.starts(with: (root + "/").utf8)
    }

    /// The inode of the entry at `path` (`lstat`), nil when there is none.
    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
