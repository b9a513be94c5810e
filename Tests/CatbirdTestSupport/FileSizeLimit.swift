import Foundation
import XCTest

/// A launched process's file-size limit (RLIMIT_FSIZE), set from outside as `prlimit --pid` does.
public enum FileSizeLimit {
    /// Sets `pid`'s soft RLIMIT_FSIZE to `soft` bytes (nil: unlimited), its hard limit unchanged,
    /// with util-linux's `prlimit` (Swift's Glibc module does not export `prlimit(2)`).
    /// - Throws: `XCTSkip` when `/usr/bin/prlimit` is not installed; what running it throws.
    public static func set(of pid: Int32, soft: Int?) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            throw XCTSkip("/usr/bin/prlimit (util-linux) is not installed")
        }
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/prlimit"), ["--pid", "\(pid)", "--fsize=\(soft.map(String.init) ?? "unlimited"):"],
            in: FileManager.default.temporaryDirectory, seconds: 10)
        XCTAssertEqual(result.status, 0, result.output)
    }
}
