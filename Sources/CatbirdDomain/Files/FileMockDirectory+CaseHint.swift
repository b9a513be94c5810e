import Foundation

extension FileMockDirectory {
    /// The most entries of one directory read to find a name in another letter case: 10,000
    /// (a larger directory is not searched, so a 404 never reads more than that per level).
    static let letterCaseEntryLimit = 10_000

    /// When `name` (a name tried) does not exist but a regular file inside ``root`` does whose
    /// path differs from it in letter case only (each component found by comparing the entries
    /// of its directory case-insensitively): says so. Fixtures recorded or written on macOS,
    /// whose default file system ignores case, then served from Linux, which does not, are
    /// the commonest such miss (tester finding tester60b-F1: `/api/Books.json` against
    /// `api/books.json` got no hint, while an NFC/NFD miss did). Nil otherwise. Reads each
    /// directory on the way whose entry is missing, up to ``letterCaseEntryLimit`` entries: a
    /// 404 with a mocks directory only.
    func otherLetterCase(of name: String) -> String? {
        let components = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty, confined(name).flatMap(Self.regularFile) == nil else { return nil }
        var found: [String] = []
        var directory = root
        for component in components {
            let exact = directory + "/" + component
            if FileManager.default.fileExists(atPath: exact) {
                found.append(component)
                directory = exact
                continue
            }
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory),
                  entries.count <= Self.letterCaseEntryLimit,
                  let other = entries.first(where: { $0.caseInsensitiveCompare(component) == .orderedSame })
            else { return nil }
            found.append(other)
            directory += "/" + other
        }
        let other = found.joined(separator: "/")
        guard other != name, confined(other).flatMap(Self.regularFile) != nil else { return nil }
        return "\(other) exists, in another letter case: file names are compared case by case (a macOS checkout ignores "
            + "case, Linux does not); ask for \(other) or rename the file to \(name) (docs/files.md#request-to-file)"
    }
}
