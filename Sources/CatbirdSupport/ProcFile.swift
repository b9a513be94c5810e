#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a kernel text file under `/proc` (Linux): such a file reports no size, and one of many
/// lines (`/proc/net/tcp`, `/proc/locks`) comes in several reads, so it is read until the end.
/// Foundation's `String(contentsOfFile:)` stopped after its first page (tester finding
/// tester41a-F8's fix missed TIME-WAIT sockets listed past it).
public enum ProcFile {
    /// `path`'s whole text (bytes that are not UTF-8 replaced), or nil when it cannot be opened.
    public static func text(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
