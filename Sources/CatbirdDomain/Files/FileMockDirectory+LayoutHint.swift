import Foundation

/// A 404's hint for a recording filed in the other layout (tester finding tester40a-F9): proxy
/// mode files an answer under its host (`<dir>/api.example.com/v1/users`, the request sent in
/// absolute form), redirect mode and origin-form requests without one (`<dir>/v1/users`), so
/// an app switched from one way of reaching Catbird to the other (docs/files.md) got 404s that
/// named neither the file nor the cause, as did one replaying another host's recordings.
extension FileMockDirectory {
    /// Host directories looked into at most, in byte order (``otherLayout(tried:target:)``).
    static let layoutHintHosts = 64

    /// When a name tried (`tried`, at most ``missHintNames`` of them) is a regular file in the
    /// other layout: for an origin-form `target`, under a host directory (`127.0.0.1/p/echo`);
    /// for an absolute-form one, without its host (`p/echo`) or under another host's directory.
    /// Says which file, how it was recorded and how to reach it; nil when none is. Host
    /// directories are the first ``layoutHintHosts`` directories at the top whose names look like
    /// hosts (``looksLikeHost(_:)``). Reads the directory: asked only for a 404.
    func otherLayout(tried: [String], target: String) -> String? {
        let absolute = ["http://", "https://"].contains { target.lowercased().hasPrefix($0) }
        let names = tried.prefix(Self.missHintNames)
        let hosts = hostDirectories()
        if absolute {
            for name in names {
                guard let slash = name.firstIndex(of: "/") else { continue }
                let host = String(name[..<slash])
                let path = String(name[name.index(after: slash)...])
                if isFile(path) {
                    return "\(path) is there: a recording filed without a host directory (redirect mode, or origin-form requests); "
                        + "point the app's base URL at Catbird instead of using it as a proxy, or move the file into \(host)/ (docs/files.md#request-to-file)"
                }
                if let other = hosts.first(where: { $0 != host && isFile($0 + "/" + path) }) {
                    return "\(other)/\(path) is there: a recording of host \(other), not \(host); "
                        + "ask for http://\(other)/\(path), or copy it into \(host)/ (docs/files.md#request-to-file)"
                }
            }
            return nil
        }
        for name in names {
            if let host = hosts.first(where: { isFile($0 + "/" + name) }) {
                return "\(host)/\(name) is there: a recording made in proxy mode, filed under its host; send the request through "
                    + "Catbird as a proxy (absolute form, http://\(host)/…), or move the file up out of \(host)/ (docs/files.md#request-to-file)"
            }
        }
        return nil
    }

    /// The top-level directories whose names look like hosts, in byte order, at most ``layoutHintHosts``.
    private func hostDirectories() -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        return entries.filter(Self.looksLikeHost).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(Self.layoutHintHosts).filter { entry in
            confined(entry).map(Self.isDirectory) == true
        }
    }

    private func isFile(_ name: String) -> Bool { confined(name).flatMap(Self.regularFile) != nil }

    /// Whether a top-level directory's name looks like the host a proxy recording is filed
    /// under: `localhost`, a name with a port or an IPv6 address (a `:`), four dot-separated
    /// numbers (IPv4), or a dotted name whose last label is letters only, as top-level domains
    /// are (`api.example.com`). A fixture folder named for a version, `v1.2` or `api.v2`, is no
    /// host's: the 404 called its files proxy recordings and advised proxy mode, where the app's
    /// base URL lacked the folder's prefix (tester finding tester56a-F4).
    static func looksLikeHost(_ name: String) -> Bool {
        guard !name.hasPrefix(".") else { return false }
        if name == "localhost" || name.contains(":") { return true }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, !labels.contains(where: \.isEmpty) else { return false }
        if labels.count == 4, labels.allSatisfy({ $0.count <= 3 && $0.allSatisfy { ("0"..."9").contains($0) } }) { return true }
        return labels.last!.allSatisfy { $0.isASCII && $0.isLetter }
    }
}
