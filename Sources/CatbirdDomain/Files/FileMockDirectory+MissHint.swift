import Foundation

/// What a 404's reason says about the mocks directory (docs/matching.md#near-misses): the names
/// tried, why a name that exists was not served, and a file beside the name.
extension FileMockDirectory {
    /// What a 404's reason says about this directory when no file answered `target`
    /// (docs/matching.md#near-misses): `no file mock in <root> (tried api/books)`, the names
    /// tried (at most ``missHintNames``); then why the first name tried that exists was not
    /// served (``whyNotServed(_:)``: a symlink leading outside, a symlink loop, not a regular
    /// file, a directory), or, when none exists, a name tried that exists in the other Unicode
    /// normalization (``otherNormalization(of:)``); then, for a name without an extension, the
    /// first file beside it with one (sidecars and hidden files left out) and the `Accept` type
    /// that selects it: `; api/books.json is beside it: send Accept: application/json, or add .json to the path`
    /// (for a trailing `/`, the target naming it: `; docs/index.html is beside it: send Accept: text/html, or ask for /docs/index.html`)
    /// (with the query kept, `--files-with-query`, only the `Accept`: the extension follows the query);
    /// or a name tried that is a file under the other `--files-with-query` rule
    /// (``otherQueryRule(target:accept:)``) or in the other layout, with or without a host
    /// directory (``otherLayout(tried:target:)``).
    /// Reads the directory: asked only for a 404 with a mocks directory set, so none of this is
    /// on the path of a request a file or mock answers.
    public func missHint(target: String, accept: String?) -> String {
        let tried = candidates(target: target, accept: accept) + indexCandidates(target: target, accept: accept)
        let named = FileMockName.named(target: target, includesQuery: includesQuery)
        guard case let .success(name) = named, !tried.isEmpty else {
            let why = if case let .failure(refusal) = named { ": \(refusal.reason)" } else { "" }
            return "no file mock: the request-target maps to no file name in \(root)\(why) (docs/files.md#confinement)"
        }
        var names = tried.prefix(Self.missHintNames).joined(separator: ", ")
        if tried.count > Self.missHintNames { names += ", …" }
        var hint = "no file mock in \(root) (tried \(names))"
        if let gone = rootGone() { return hint + "; " + gone }
        if let why = tried.lazy.compactMap(whyNotServed).first {
            hint += "; " + why
        } else if let other = tried.prefix(Self.missHintNames).lazy.compactMap(otherNormalization).first {
            hint += "; " + other
        } else if let other = tried.prefix(Self.missHintNames).lazy.compactMap(otherLetterCase).first {
            hint += "; " + other
        } else if let other = otherQueryRule(target: target, accept: accept) {
            hint += "; " + other
        } else if let other = otherLayout(tried: tried, target: target) {
            hint += "; " + other
        }
        guard !name.hasExtension, let sibling = fileWithExtension(beside: name) else { return hint }
        let ext = sibling[sibling.index(after: sibling.lastIndex(of: ".")!)...]
        let type = mediaTypes.type(forFileName: sibling)
        guard name.hasQuery else {
            // A trailing `/` names `index`: `.html` added to `/docs/` names `docs/.html`, so the
            // target that names the file is told instead (tester finding T18A-F7).
            let fix = name.namesIndex ? "ask for \(Self.target(target, naming: "index.\(ext)"))" : "add .\(ext) to the path"
            return hint + "; \(sibling) is beside it: \(type.map { "send Accept: \($0), or " } ?? "")" + fix
        }
        // The Accept extension follows the query (`list?page=2.json`): `.json` added to the
        // path would name `list.json?page=2` (try9a F4).
        return hint + "; \(sibling) is beside it"
            + (type.map { ": send Accept: \($0) (the Accept extension follows the query, so .\(ext) added to the path does not name it)" }
                ?? ": with the query, only an Accept that adds .\(ext) names it")
    }

    /// When the request has a query and the name the other `--files-with-query` setting gives
    /// it is a file here: that it is, and which setting serves it. Tester finding tester36a-F8:
    /// recordings made with `--files-with-query` (`list?page=2`) replayed without it, or the
    /// reverse, got 404s that named neither the file nor the option.
    func otherQueryRule(target: String, accept: String?) -> String? {
        guard let query = target.firstIndex(of: "?"), target.index(after: query) < target.endIndex else { return nil }
        let other = FileMockDirectory(root: root, mediaTypes: mediaTypes, includesQuery: !includesQuery)
        // Its index too (tester finding tester37a-F2: a collection recorded without the option
        // and moved into `api/users/index` by its item got no hint).
        let names = other.candidates(target: target, accept: accept) + other.indexCandidates(target: target, accept: accept)
        guard let found = names.first(where: { name in confined(name).flatMap(Self.regularFile) != nil }) else { return nil }
        if includesQuery {
            return "\(found) is there: its name leaves the query out, which is served without --files-with-query (docs/files.md#query-strings)"
        }
        // Without the option the file is served too, to the target whose `?` is sent as `%3F`
        // (how record mode without the option came to write it: tester finding tester65a-F1,
        // `/q%3Fx` recorded `q?x`, and `GET /q?x` was sent to --files-with-query only).
        let encoded = String(target[..<query]) + "%3F" + target[target.index(after: query)...]
        let servedEncoded = (candidates(target: encoded, accept: accept) + indexCandidates(target: encoded, accept: accept))
            .contains { name in confined(name).flatMap(Self.regularFile) != nil }
        return "\(found) is there: its name holds the query, which is served with --files-with-query"
            + (servedEncoded ? ", or without it to \(encoded) (a '?' in a file name is %3F in the path)" : "")
            + " (docs/files.md#query-strings)"
    }

    /// Why nothing in the directory can be served, or recorded into (`recording`), any more,
    /// when it is gone: it was a directory at start-up (a missing one is refused then, or made
    /// for record mode), and a CI step (`git clean`, a checkout, a rename) may remove it under a
    /// running server; its 404s then said only which names were tried, as for a missing fixture
    /// (tester finding tester28b-F1); health says it too, in record mode as well (tester
    /// finding tester31a-F3: every recording failed while health said ok). Nil while it is a
    /// directory.
    public func rootGone(recording: Bool = false) -> String? {
        let notRecorded = "nothing is recorded into it until it is a directory again (mkdir -p \(root)); "
            + "each answer meanwhile is journaled with the problem `not recorded: …`"
        var status = stat()
        guard stat(root, &status) == 0 else {
            return "the mocks directory \(root) does not exist any more (it did at start-up): "
                + (recording ? notRecorded : "nothing in it is served until it is back (the server reads it at each request)")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            return "the mocks directory \(root) is no longer a directory (it was at start-up): "
                + (recording ? notRecorded : "nothing in it is served until it is again")
        }
        return nil
    }

    /// `target`, which ends its path with `/` (or has an empty one, `http://h` in proxy form),
    /// with `file` appended to the path, its query kept and any fragment left out:
    /// `/docs/?v=1` → `/docs/index.html?v=1`.
    static func target(_ target: String, naming file: String) -> String {
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        let pathEnd = rest.firstIndex(of: "?") ?? rest.endIndex  // a proxy form's authority holds no "?"
        let path = rest[..<pathEnd]
        return String(path) + (path.hasSuffix("/") ? "" : "/") + file + rest[pathEnd...]
    }

    /// Names a 404's reason lists at most (``missHint(target:accept:)``).
    public static let missHintNames = 6

    /// Why `name`, a name tried that no file answered, was not served, when something by that
    /// name exists (`stat`, symlinks followed); nil when nothing does. Tester findings T11-F7 and
    /// T12-F9: the reason said only `(tried <name>)`, which reads as "no such file":
    /// - it resolves outside ``root``: `leak is a symlink, or under one, leading outside the mocks
    ///   directory: not served (docs/files.md#confinement)`;
    /// - a symlink loop (`ELOOP`): `loop is a symlink loop, or under one (too many levels of symbolic links): not served`;
    /// - not a regular file: `fifo is a FIFO, not a regular file: not served`;
    /// - a directory: with an extension (`dir.json`, whose index is never looked for) `end the
    ///   path with / to ask for dir.json/index`; without one, it has no index file;
    /// - any other error but "no such file" (`EACCES` on a directory above it, a name too long): the system's words.
    func whyNotServed(_ name: String) -> String? {
        switch obstacle(name) {
        case nil: return nil
        case .loop: return "\(name) is a symlink loop, or under one (too many levels of symbolic links): not served"
        case let .unresolvable(code): return "\(name) cannot be looked up: \(String(cString: strerror(code)))"
        case .outside:
            return "\(name) is a symlink, or under one, leading outside the mocks directory: not served (docs/files.md#confinement)"
        case .directory:
            let last = name.split(separator: "/").last ?? Substring(name)
            if last.dropFirst().contains(".") {
                return "\(name) is a directory, and a name with an extension is not looked up as a directory's index: end the path with / to ask for \(name)/index"
            }
            // An index with an extension is served for an Accept that adds it (tester finding
            // tester42a-F10: "no index file in it" of a directory holding index.html).
            if let index = indexWithExtension(in: name) {
                let ext = index[index.index(after: index.lastIndex(of: ".")!)...]
                let type = mediaTypes.type(forFileName: index)
                return "\(name) is a directory with no file named exactly index in it; \(name)/\(index) is there: "
                    + (type.map { "send Accept: \($0), or " } ?? "") + "ask for /\(name)/index.\(ext) (docs/files.md#request-to-file)"
            }
            return "\(name) is a directory with no index file in it (docs/files.md#request-to-file)"
        case let .notRegular(kind): return "\(name) is \(kind), not a regular file: not served"
        }
    }

    /// What stands where a file `name` was looked for, when something does but is no regular
    /// file inside ``root`` (`stat`, symlinks followed); nil when nothing does (`ENOENT`,
    /// `ENOTDIR`) or it is a regular file inside. Read by ``whyNotServed(_:)`` and by a
    /// sidecar's lookup (``unusableSidecar(_:)``).
    enum Obstacle {
        case loop
        case unresolvable(Int32)
        case outside
        case directory
        /// What it is instead: `a FIFO`, `a socket`, `a device`, `a special file`.
        case notRegular(String)
    }

    func obstacle(_ name: String) -> Obstacle? {
        var info = stat()
        guard stat(root + "/" + name, &info) == 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return nil
            case ELOOP: return .loop
            case let code: return .unresolvable(code)
            }
        }
        guard confined(name) != nil else { return .outside }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return .directory
        case S_IFIFO: return .notRegular("a FIFO")
        case S_IFSOCK: return .notRegular("a socket")
        case S_IFCHR, S_IFBLK: return .notRegular("a device")
        default: return .notRegular("a special file")
        }
    }

    /// When `name` (a name tried, not ASCII) does not exist but its other Unicode normalization
    /// does as a regular file inside ``root`` (NFC `é`, `%C3%A9`, asked for a file named in NFD
    /// `e\u{301}`, as macOS names files): says so, both spelled with their bytes percent-encoded,
    /// since they look alike: `é exists as another Unicode normalization, e%CC%81 (NFD): file
    /// names are compared byte for byte; ask for e%CC%81 or rename the file to é (%C3%A9)`.
    /// Nil otherwise (T12-F9). Tries the whole name in NFC and in NFD: two `stat`s at most.
    func otherNormalization(of name: String) -> String? {
        guard !name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let forms = [("NFC", name.precomposedStringWithCanonicalMapping), ("NFD", name.decomposedStringWithCanonicalMapping)]
        // Compared as bytes: String's == holds canonically equivalent text equal.
        guard let (form, other) = forms.first(where: { !$0.1.utf8.elementsEqual(name.utf8) && confined($0.1).flatMap(Self.regularFile) != nil })
        else { return nil }
        return "\(name) exists as another Unicode normalization, \(Self.percentEncoded(other)) (\(form)): file names are compared "
            + "byte for byte; ask for \(Self.percentEncoded(other)) or rename the file to \(Self.percentEncoded(name)) (docs/files.md#request-to-file)"
    }

    /// `name` with every byte outside ASCII written `%XY`.
    private static func percentEncoded(_ name: String) -> String {
        var text = ""
        for byte in name.utf8 {
            if byte < 0x80 {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "%" + String(byte, radix: 16, uppercase: true)
            }
        }
        return text
    }

    /// The first (in byte order) regular file `index.<extension>` in the directory `name`
    /// (relative to ``root``), sidecars left out; nil when none.
    private func indexWithExtension(in name: String) -> String? {
        guard let directory = confined(name), let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        return entries.filter { entry in
            entry.hasPrefix("index.") && entry.utf8.count > 6 && !entry.hasSuffix(FileMockSidecar.suffix)
                && Self.regularFile(directory + "/" + entry) != nil
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.first
    }

    /// The first (in byte order) regular file named `<name's last segment>.<extension>` in the
    /// name's directory, relative to ``root``, without sidecars; nil when none.
    private func fileWithExtension(beside name: FileMockName) -> String? {
        let parent = name.segments.dropLast().joined(separator: "/")
        guard let directory = parent.isEmpty ? root : confined(parent),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        let stem = name.segments[name.segments.count - 1] + "."
        let found = entries.filter { entry in
            entry.utf8.starts(with: stem.utf8) && entry.utf8.count > stem.utf8.count && !entry.hasSuffix(FileMockSidecar.suffix)
                && Self.regularFile(directory + "/" + entry) != nil
        }.sorted().first
        return found.map { parent.isEmpty ? $0 : parent + "/" + $0 }
    }
}
