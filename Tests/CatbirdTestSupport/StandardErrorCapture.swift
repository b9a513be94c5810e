import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `body` writes to standard error (file descriptor 2), read back from a temporary file
/// it was redirected to for the call; the descriptor is restored afterwards.
/// - Throws: what `body` throws, or when the written text cannot be read back.
public func capturingStandardError(_ body: () throws -> Void) throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
    let capture = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard capture >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer { try? FileManager.default.removeItem(atPath: file) }
    let saved = dup(2)
    dup2(capture, 2)
    defer {
        dup2(saved, 2)
        close(saved)
        close(capture)
    }
    try body()
    return try String(contentsOfFile: file, encoding: .utf8)
}
