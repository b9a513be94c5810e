// catbird-bare-mhd: the ceiling for Benchmarks/run.sh's one-mock scenario. libmicrohttpd
// daemons started exactly as Catbird's HTTPServer starts its own (WorkerDaemons: the same
// acceptor, flags, worker threads, idle timeout, connection memory and connection limit),
// whose handler does nothing but queue one response made at start (`{"ok":true}`,
// application/json): no request value, no matching, no journal. What it reaches beside nginx is what libmicrohttpd and the kernel allow on the
// machine; Catbird's distance from it is Catbird's own work.
//
//   catbird-bare-mhd PORT [THREADS]    (127.0.0.1; THREADS defaults to the number of cores)
//
// It runs until SIGTERM or SIGINT. Benchmark-only: not part of the product.
import CMicroHTTPD
import CatbirdHTTP
#if canImport(Glibc)
import Glibc
#endif

/// Prints `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let port = UInt16(arguments[1]) else {
    fail("usage: catbird-bare-mhd PORT [THREADS]", status: 2)
}
let configuration = HTTPServer.Configuration(
    host: "127.0.0.1", port: port, threadCount: arguments.count >= 3 ? Int(arguments[2]) ?? HTTPServer.coreCount : HTTPServer.coreCount)

/// The one response, made once and queued for every request (libmicrohttpd reference-counts it).
nonisolated(unsafe) let answer: OpaquePointer = {
    let body = Array(#"{"ok":true}"#.utf8)
    let response = body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), MHD_ResponseMemoryMode(rawValue: 2)!)
    }!
    _ = MHD_add_response_header(response, "Content-Type", "application/json")
    return response
}()

/// Called once when the headers are complete (`*context` is nil: mark the request), then once
/// per body chunk, then with no data: answer, as Catbird's handler does.
let handler: MHD_AccessHandlerCallback = { _, connection, _, _, _, _, uploadSize, context in
    guard let connection, let uploadSize, let context else { return .NO }
    if context.pointee == nil {
        context.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return .YES
    }
    if uploadSize.pointee > 0 {
        uploadSize.pointee = 0
        return .YES
    }
    return MHD_queue_response(connection, 200, answer)
}

let daemons: WorkerDaemons
do {
    daemons = try WorkerDaemons.start(configuration, flags: HTTPServer.daemonFlags, callbacks: .init(access: handler))
} catch {
    fail("catbird-bare-mhd: cannot listen on 127.0.0.1:\(port)", status: 1)
}
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGTERM)
sigaddset(&signals, SIGINT)
pthread_sigmask(SIG_BLOCK, &signals, nil)
var received: Int32 = 0
sigwait(&signals, &received)
daemons.stop()
