import CatbirdDomain
import Foundation

/// A fresh directory under the system's temporary one, removed on deinit.
final class TemporaryMocksDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `contents` at `name` (relative), creating directories.
    func write(_ name: String, _ contents: String) throws {
        let url = URL(fileURLWithPath: path + "/" + name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }

    func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) }
    }

    func mocks(table: String = "application/json json\n", includesQuery: Bool = false) throws -> FileMockDirectory {
        try FileMockDirectory(path: path, mediaTypes: MediaTypes(table: table), includesQuery: includesQuery)
    }
}
