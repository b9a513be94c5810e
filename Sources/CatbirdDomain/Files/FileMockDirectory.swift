import CatbirdMatching
import Foundation

/// A mocks directory (`--mocks-dir`, `CATBIRD_MOCKS_DIR`): finds the file mock for a request.
/// Rules: `docs/files.md`.
///
/// Every candidate is resolved with `realpath` (symlinks followed) and used only when the result
/// lies inside the directory, so no request reads outside it, whatever its encoding or links.
public struct FileMockDirectory: Sendable {
    /// The directory, absolute with symlinks resolved.
    public let root: String
    /// Extensions tried for a path without one, and `Content-Type` for files without a sidecar.
    public let mediaTypes: MediaTypes
    /// Whether the query string is part of the file name (`docs/files.md#query-strings`).
    public let includesQuery: Bool

    /// The same directory read by other rules (its root already resolved).
    init(root: String, mediaTypes: MediaTypes, includesQuery: Bool) {
        self.root = root
        self.mediaTypes = mediaTypes
        self.includesQuery = includesQuery
    }

    /// - Throws: ``FileMockError/notADirectory(path:)`` when `path` is not an existing directory.
    public init(path: String, mediaTypes: MediaTypes, includesQuery: Bool = false) throws(FileMockError) {
        guard let resolved = Self.realPath(path), Self.isDirectory(resolved) else { throw .notADirectory(path: path) }
        root = resolved
        self.mediaTypes = mediaTypes
        self.includesQuery = includesQuery
    }

    /// The names tried for a request, in order, relative to ``root``; empty when the target is
    /// refused (``FileMockName``). A name without an extension is tried with each extension of
    /// each `Accept` type in preference order, then bare.
    public func candidates(target: String, accept: String?) -> [String] {
        guard let name = FileMockName(target: target, includesQuery: includesQuery) else { return [] }
        return candidates(name, accept: accept)
    }

    /// `Accept` media types whose extensions are tried at most: the first 16 distinct ones in
    /// preference order (docs/files.md#accept-candidates). A 27 KB `Accept` naming every type of
    /// the media-type table made thousands of names, 30 ms of a worker per request (try8b F13).
    public static let acceptTypesTried = 16
    /// Names tried with an `Accept` extension at most, before the bare name: 64.
    public static let acceptNamesTried = 64

    /// The names tried for `name`: with each `Accept` extension, then bare (``candidates(target:accept:)``);
    /// each extension once, from at most ``acceptTypesTried`` types, at most ``acceptNamesTried`` names.
    /// This is where every request (served or recorded) becomes a file name, so a name no request
    /// may have (``FileMockName/isReserved(_:)``: `foo?x=.catbird-response` + `.json` is
    /// `foo?x=`'s sidecar, T15B-F4) is left out here, whatever made it.
    func candidates(_ name: FileMockName, accept: String?) -> [String] {
        let bare = name.path
        guard !name.hasExtension, let accept else { return [bare] }
        var seen = Set<String>()
        var names: [String] = []
        let last = name.segments.last ?? ""
        search: for type in AcceptHeader.preferredTypes(accept, distinctAtMost: Self.acceptTypesTried) {
            for ext in mediaTypes.extensions(for: type) where seen.insert(ext).inserted {
                guard names.count < Self.acceptNamesTried else { break search }
                if FileMockName.isReserved(last + "." + ext) { continue }
                names.append(bare + "." + ext)
            }
        }
        return names + [bare]
    }

    /// The names tried after ``candidates(target:accept:)`` when the bare name is a directory
    /// inside ``root``: the same candidates of its `index` (``FileMockName/directoryIndex``;
    /// `/api/users` → `api/users/index.json`, `api/users/index`), where record mode writes a
    /// collection whose items made its name a directory. Empty otherwise.
    public func indexCandidates(target: String, accept: String?) -> [String] {
        guard let name = FileMockName(target: target, includesQuery: includesQuery), let index = name.directoryIndex,
              let directory = confined(name.path), Self.isDirectory(directory) else { return [] }
        return candidates(index, accept: accept)
    }

    /// The file mock answering `target`, or nil when no candidate (``candidates(target:accept:)``,
    /// then ``indexCandidates(target:accept:)``) is a regular file inside the directory.
    /// - Throws: ``FileMockError/badSidecar(path:reason:)`` when the file's sidecar is unreadable
    ///   or describes a response that cannot be sent as given (``ResponseRules``, the mocks' rule:
    ///   a 1xx status, a body on a 204 or 304, `Transfer-Encoding`…).
    public func lookup(target: String, accept: String?) throws(FileMockError) -> FileMock? {
        if let found = try firstFileMock(candidates(target: target, accept: accept)) { return found }
        return try firstFileMock(indexCandidates(target: target, accept: accept))
    }

    /// The file mock of the first of `names` that is a regular file inside the directory.
    private func firstFileMock(_ names: [String]) throws(FileMockError) -> FileMock? {
        for name in names {
            guard let path = confined(name), let info = Self.regularFile(path) else { continue }
            return try fileMock(name: name, path: path, size: info.size, modified: info.modified)
        }
        return nil
    }

    private func fileMock(name: String, path: String, size: Int, modified: Int) throws(FileMockError) -> FileMock {
        let sidecarPath = root + "/" + name + FileMockSidecar.suffix
        var sidecar = FileMockSidecar()
        if let confinedSidecar = confined(name + FileMockSidecar.suffix), Self.regularFile(confinedSidecar) != nil {
            guard let data = FileManager.default.contents(atPath: confinedSidecar) else {
                throw .badSidecar(path: sidecarPath, reason: "cannot be read")
            }
            sidecar = try FileMockSidecar(json: data, path: sidecarPath)
            do {
                try ResponseRules.check(status: sidecar.status, headers: sidecar.headers, bodyLength: size, source: .file)
            } catch {
                throw .badSidecar(path: sidecarPath, reason: error.reason)
            }
        } else if let reason = unusableSidecar(name + FileMockSidecar.suffix) {
            throw .badSidecar(path: sidecarPath, reason: reason)
        } else if let type = mediaTypes.type(forFileName: name) {
            sidecar.headers = [(name: "Content-Type", value: type)]
        }
        let tag = FileMock.entityTag(headers: sidecar.headers, size: size, modified: modified)
        // A Content-Length is the file's size (checked above); the server sends its own.
        let headers = sidecar.headers.filter { $0.name.lowercased() != "content-length" }
        return FileMock(path: path, size: size, status: sidecar.status, headers: headers, entityTag: tag)
    }

    /// Why the sidecar `name` (relative to ``root``), which is not a regular file inside the
    /// directory, cannot be used, when something of that name exists; nil when nothing does (the
    /// file has no sidecar). Tester finding tester36a-F3: a sidecar that was a symlink leading
    /// outside the directory, a directory or a FIFO was taken for none, and its file answered 200
    /// with a guessed `Content-Type` where the sidecar said 401, with no reason anywhere.
    func unusableSidecar(_ name: String) -> String? {
        switch obstacle(name) {
        case nil:
            // Nothing resolves there, yet a link may: one to nothing (a regular file inside
            // never gets here).
            var info = stat()
            return lstat(root + "/" + name, &info) == 0 ? "it is a symlink to nothing (its target does not exist)" : nil
        case .loop: return "it is a symlink loop, or under one (too many levels of symbolic links)"
        // A name too long for the file system cannot exist: no sidecar (tester finding
        // tester46b-F2: a file of a 234-255-byte name, whose sidecar's name passes 255, answered 500).
        case .unresolvable(ENAMETOOLONG): return nil
        case let .unresolvable(code): return "it cannot be looked up (\(String(cString: strerror(code))))"
        case .outside: return "it is a symlink, or under one, leading outside the mocks directory: symlinks are followed only within it"
        case .directory: return "it is a directory, not a regular file"
        case let .notRegular(kind): return "it is \(kind), not a regular file"
        }
    }

    /// `root/name` with symlinks resolved, when it exists and lies inside ``root``. Inside means
    /// its bytes start with the root's and a `/`: `String.hasPrefix` compares canonically
    /// equivalent text as equal, so a symlink to a sibling directory whose name differs only in
    /// normalization (NFC `mdé` beside NFD `mdé`, two directories to the file system) passed as
    /// inside (try7b F13).
    func confined(_ name: String) -> String? {
        guard let resolved = Self.realPath(root + "/" + name), resolved.utf8.starts(with: (root + "/").utf8) else { return nil }
        return resolved
    }

    /// `path` with its symbolic links resolved (`realpath`), nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is a directory (symbolic links followed).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Size in bytes and modification time in nanoseconds since 1970 of a regular file, or nil.
    static func regularFile(_ path: String) -> (size: Int, modified: Int)? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }
}
