#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One-line log messages to standard error, filtered by level. Every message is written with its
/// control characters escaped (``LogText/escapingControlCharacters(_:)``), so client bytes in it
/// (tenant ids, targets, methods, header values) can neither drive the terminal nor break the line.
public struct Logger: Sendable {
    /// Severity, lowest first. `info` logs one line per request; `warning` is quiet.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case debug, info, warning, error

        /// Parses `debug`, `info`, `warning` (or `warn`), `error`, case-insensitively.
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Messages below this level are dropped.
    public let level: Level

    public init(level: Level) {
        self.level = level
        LogOutput.prepare()
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    /// Lines dropped since the start because standard error did not take them at once (its
    /// reader stopped reading: ``LogOutput``).
    public static var droppedLines: UInt64 { LogOutput.droppedLines.load(ordering: .relaxed) }

    public func debug(_ message: @autoclosure () -> String) { emit(.debug, message) }
    public func info(_ message: @autoclosure () -> String) { emit(.info, message) }
    public func warning(_ message: @autoclosure () -> String) { emit(.warning, message) }
    public func error(_ message: @autoclosure () -> String) { emit(.error, message) }
    /// Written at every level, labelled `info`: a line a caller needs to use the server at all,
    /// such as the URL `--port 0` chose (tester finding T14B-F1: `--log-level warning` hid it).
    public func announce(_ message: @autoclosure () -> String) { emit(.info, message, whateverTheLevel: true) }

    private func emit(_ level: Level, _ message: () -> String, whateverTheLevel: Bool = false) {
        guard whateverTheLevel || isEnabled(level) else { return }
        // One write per line, so lines from concurrent threads do not interleave; never blocking
        // (``LogOutput``): a line stderr does not take now, or a failed write (EPIPE once a
        // `| head` reading stderr has exited; SIGPIPE is ignored, see TerminationSignals), is
        // dropped: logging must never stop the server serving.
        var line = "\(Timestamp.now()) [\(level)] \(LogText.escapingControlCharacters(message()))\n"
        LogOutput.write(&line)
    }
}
