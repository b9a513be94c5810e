import Foundation

/// Executables of this package built beside the running tests (`.build/<configuration>/`).
public enum BuiltProducts {
    public struct NotBuilt: Error, CustomStringConvertible {
        public let description: String
    }

    /// The executable product `name` (e.g. `catbird`, `FeedApp`), found by walking up from the
    /// test bundle. `swift build --build-tests` builds every product, so a missing one is an
    /// error, not a reason to skip.
    /// - Throws: ``NotBuilt`` naming the folders searched.
    public static func executable(named name: String) throws -> URL {
        var starts: [URL] = [Bundle.main.bundleURL]
        if let url = Bundle.main.executableURL { starts.append(url.deletingLastPathComponent()) }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for start in starts {
            var folder = start.standardizedFileURL
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        throw NotBuilt(description: "no built '\(name)' beside the tests (looked up from \(starts.map(\.path))); run swift build --build-tests")
    }
}
