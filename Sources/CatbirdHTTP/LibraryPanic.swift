import CMicroHTTPD
import CatbirdSupport
#if canImport(Glibc)
import Glibc
#endif

/// What happens when libmicrohttpd panics: it has found its own state inconsistent (e.g. a
/// daemon stopped while connections are still suspended) and cannot go on. Its default handler
/// prints `Fatal error in GNU libmicrohttpd <file>:<line>: <reason>` and aborts; ours logs the
/// same facts through ``Logger`` (timestamped, at error level, beside the server's other
/// lines) and then aborts too, so that a SIGABRT of the server names its cause in the log.
/// See https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dinit.html
/// (`MHD_set_panic_func`).
enum LibraryPanic {
    /// Installs the handler, once per process (the panic function is process-wide); done by
    /// ``HTTPServer/start()`` before any daemon starts.
    static let installed: Void = MHD_set_panic_func(report, nil)

    /// Logs `libmicrohttpd panic at <file>:<line>: <reason>` and aborts (SIGABRT): libmicrohttpd
    /// must not be let go on (its handler may not return). The file and reason are
    /// libmicrohttpd's own strings; either may be missing (`?`).
    private static let report: MHD_PanicCallback = { _, file, line, reason in
        let place = file.map { String(cString: $0) } ?? "?"
        var why = reason.map { String(cString: $0) } ?? "?"
        while why.last?.isNewline == true { why.removeLast() }
        Logger(level: .error).error("libmicrohttpd panic at \(place):\(line): \(why); aborting (SIGABRT)")
        abort()
    }
}
