import Foundation
import Synchronization

/// Record mode's file-system changes (``FileMockRecorder``): the directories of a recording's
/// path, a collection's file moved into its `index`, and the renames of a body and its sidecar
/// into place. All happen under ``FileMockRecorder/withRenames(_:)`` (this process's lock and
/// the mocks directory's `flock`, for other Catbirds recording into it), and each one that renames more
/// than one file writes its ``RecordingIntent`` first and removes it last, so that a `kill -9`
/// between two renames is finished by the next start's sweep (tester finding tester20a-F1).
/// Rules: `docs/files.md#recording`.
extension FileMockRecorder {
    /// Creates the directories above `name` inside the root and returns the last one, resolved.
    /// A file without extension in the way becomes its directory's `index` (``moveIntoIndex(_:parked:intent:)``);
    /// a symlink to a file is not moved (its target would change) and fails the recording.
    ///
    /// Each level is resolved from the one above (already resolved): a real directory is itself,
    /// and only a symlink is resolved whole (``FileMockDirectory/confined(_:)``). So the work is
    /// linear in the levels; resolving every level from the root made it quadratic in system
    /// calls (a `readlink` per level above it) and cubic in time (try7b F5).
    func makeParent(of name: String) throws(FileMockError) -> String {
        var current = directory.root
        for segment in name.split(separator: "/").dropLast() {
            let next = current + "/" + segment
            try makeDirectory(next, named: segment)
            if Self.isRealDirectory(next) {
                current = next
                continue
            }
            guard let resolved = directory.confined(String(next.dropFirst(directory.root.count + 1))) else {
                throw .cannotRecord(path: next, reason: "it leads out of the mocks directory (a symlink)")
            }
            guard FileMockDirectory.isDirectory(resolved) else {
                throw .cannotRecord(path: next, reason: "a file is in the way where a directory must be")
            }
            current = resolved
        }
        return current
    }

    /// Makes `path` (its last segment `segment`) a directory unless one (or a symlink to one)
    /// is there: a file without extension there (a collection's recording) is moved into its
    /// `index` first. Under the renames lock, like a body's rename, so a collection and its
    /// item recorded at once cannot both find the name free: either the collection's file is
    /// there and is moved, or the directory is, and the collection is recorded into its `index`
    /// (tester finding tester20a-F2).
    private func makeDirectory(_ path: String, named segment: Substring) throws(FileMockError) {
        guard !Self.isRealDirectory(path) else { return }
        let moved = try withRenames { count throws(FileMockError) -> Bool in
            if FileMockDirectory.regularFile(path) != nil {
                guard !segment.dropFirst().contains(".") else {
                    throw .cannotRecord(
                        path: path, reason: "a file is in the way where a directory must be (a name with an extension is not moved to an index)")
                }
                // A symlink moved one level down points elsewhere (a relative one dangles: T15B-F6).
                guard !Self.isSymlink(path) else {
                    throw .cannotRecord(
                        path: path, reason: "a symlink to a file is in the way where a directory must be (a symlink is not moved to an index: "
                            + "its target would change)")
                }
                let parent = String(path[..<path.lastIndex(of: "/")!])
                try Self.moveIntoIndex(
                    path, parked: Self.temporaryPath(in: parent, count: &count),
                    intent: Self.temporaryPath(in: parent, count: &count, intent: true))
                return true
            }
            if !FileMockDirectory.isDirectory(path), mkdir(path, 0o755) != 0, errno != EEXIST {
                throw .cannotRecord(path: path, reason: String(cString: strerror(errno)))
            }
            return false
        }
        if moved {
            movedTarget(from: path, to: path + "/index")
            movedIntoIndex?(path, path + "/index")
        }
    }

    /// Turns the file at `path` (a recording of a collection, `api/users`) into the `index` of a
    /// new directory of that name, its sidecar beside it, so items under it can be recorded: the
    /// file is renamed to `parked`, the directory made, `parked` renamed into it, then the
    /// sidecar. Called under the renames lock. The intent is written first; when a rename
    /// after the first fails, it stays, and the next start finishes the move
    /// (``RecordingIntent/recover(in:)``): the file's only copy is never removed.
    private static func moveIntoIndex(_ path: String, parked: String, intent: String) throws(FileMockError) {
        let parent = String(path[..<path.lastIndex(of: "/")!])
        guard let inode = RecordingIntent.inode(path) else { return }
        let collection = String(path.dropFirst(parent.count + 1))
        let sidecarInode = RecordingIntent.inode(path + FileMockSidecar.suffix)
        try writeIntent(
            .index(collection: collection, parked: .init(name: String(parked.dropFirst(parent.count + 1)), inode: inode), sidecarInode: sidecarInode),
            to: intent)
        do {
            try move(path, to: parked)
        } catch {
            unlink(intent)
            throw error
        }
        guard mkdir(path, 0o755) == 0 else {
            let reason = String(cString: strerror(errno))
            if Foundation.rename(parked, path) == 0 { unlink(intent) }
            throw .cannotRecord(path: path, reason: reason)
        }
        try move(parked, to: path + "/index")
        if sidecarInode != nil { try move(path + FileMockSidecar.suffix, to: path + "/index" + FileMockSidecar.suffix) }
        unlink(intent)
    }

    /// Renames the temporary `body` and `sidecar` (in `parent`) to `target` (a name in
    /// `parent`, or `<name>/index`) and its sidecar's name, all or nothing: the intent is
    /// written first (removed last), and the body there before is linked to `kept` (`link`, no
    /// copy), so that when the sidecar's rename fails (a directory holds its name: `EISDIR`)
    /// the old body goes back in place, beside its sidecar, which was not touched; with no old
    /// body the new one is removed. Called under the renames lock.
    /// - Throws: ``FileMockError/cannotRecord(path:reason:)`` naming the write or rename that
    ///   failed; nothing of this recording is left then.
    static func renamePair(
        body: String, sidecar: String, to target: String, in parent: String, keepingOldBodyAt kept: String, intent: String
    ) throws(FileMockError) {
        let path = parent + "/" + target
        guard let bodyInode = RecordingIntent.inode(body), let sidecarInode = RecordingIntent.inode(sidecar) else {
            unlink(body)
            unlink(sidecar)
            throw .cannotRecord(path: path, reason: "its temporary files are gone")
        }
        let name = { (path: String) in String(path.dropFirst(parent.count + 1)) }
        do {
            try writeIntent(
                .pair(
                    target: target, body: .init(name: name(body), inode: bodyInode), sidecar: .init(name: name(sidecar), inode: sidecarInode),
                    kept: name(kept)),
                to: intent)
        } catch {
            unlink(body)
            unlink(sidecar)
            throw error
        }
        defer { unlink(intent) }
        // ENOENT: no old body. Another failure (a file system without hard links): none kept,
        // and a failed sidecar removes the body, the old recording's sidecar left alone.
        let keptOld = link(path, kept) == 0
        defer { if keptOld { unlink(kept) } }
        do {
            try renameTemporary(body, to: path)
        } catch {
            unlink(sidecar)
            throw error
        }
        do {
            try renameTemporary(sidecar, to: path + FileMockSidecar.suffix)
        } catch {
            if !keptOld || Foundation.rename(kept, path) != 0 { unlink(path) }
            throw error
        }
    }

    /// Writes `intent` to the file at `path` (new); a write that fails removes what it wrote.
    private static func writeIntent(_ intent: RecordingIntent, to path: String) throws(FileMockError) {
        if let reason = writeNewFile(intent.json, at: path) {
            throw .cannotRecord(path: path, reason: reason)
        }
    }

    /// Writes `data` to a new file at `path` (`O_EXCL`, mode 0666 less the umask) with
    /// `write(2)`; nil when it was written, else the system's reason (`strerror`: "File too
    /// large" past `RLIMIT_FSIZE`, "No space left on device"), after removing what it wrote.
    /// Foundation's `Data.write` said "The operation could not be completed.
    /// (NSCocoaErrorDomain error 512.)" for the file-size limit (tester finding tester31a-F2).
    static func writeNewFile(_ data: Data, at path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        var failure: Int32?
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if close(descriptor) != 0, failure == nil, errno != EINTR { failure = errno }
        guard let failure else { return nil }
        unlink(path)
        return String(cString: strerror(failure))
    }

    /// Whether `path` is a symlink (`lstat`), whatever it points to.
    static func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Whether `path` is a directory and not a symlink (`lstat`): inside its parent, so confined
    /// when the parent is.
    static func isRealDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A new temporary file's path in `parent`, numbered with `count` (the renames lock's, held),
    /// an intent's with `intent` (``RecordingTemporaryFile/name(ticket:intent:)``).
    static func temporaryPath(in parent: String, count: inout Int, intent: Bool = false) -> String {
        count += 1
        return parent + "/" + RecordingTemporaryFile.name(ticket: count, intent: intent)
    }

    /// Writes `data` to a new temporary file in `parent` and returns its path; a write that
    /// fails (a full disk, the file-size limit) removes what it wrote and names `recording`,
    /// the file it was for (the temporary name, gone by then, tells a user nothing: tester
    /// finding tester31a-F2).
    func writeTemporary(_ data: Data, in parent: String, for recording: String) throws(FileMockError) -> String {
        let path = renames.withLock { count in Self.temporaryPath(in: parent, count: &count) }
        if let reason = Self.writeNewFile(data, at: path) {
            throw .cannotRecord(path: recording, reason: reason)
        }
        return path
    }

    /// Renames this recording's temporary file `from` to `to`; when that fails, removes it.
    private static func renameTemporary(_ from: String, to: String) throws(FileMockError) {
        do {
            try move(from, to: to)
        } catch {
            unlink(from)
            throw error
        }
    }

    /// Renames `from` to `to`, leaving `from` as it is when that fails (it may be a body's only copy).
    private static func move(_ from: String, to: String) throws(FileMockError) {
        guard Foundation.rename(from, to) == 0 else { throw .cannotRecord(path: to, reason: String(cString: strerror(errno))) }
    }
}
