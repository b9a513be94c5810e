import CThreads
import Foundation

extension Thread {
    /// The longest thread name the kernel keeps, in bytes: 15 (`TASK_COMM_LEN` is 16 with
    /// the NUL; pthread_setname_np(3) refuses a longer one with `ERANGE`).
    public static let kernelNameLimit = 15

    /// A thread (not started) that runs `body` under `name`, both Foundation's (`Thread.name`)
    /// and the kernel's (``setKernelName(_:)``, set first thing on the new thread).
    ///
    /// Why both: on Linux, Foundation's `Thread.name` of a thread set before it starts never
    /// reaches the kernel, so every thread of a running server showed the process's name in
    /// `/proc/<pid>/task/*/comm` (seen 2026-12-02 with Swift 6.3's Foundation), and `top -H`,
    /// `ps -L`, `perf sched` and the per-thread `schedstat` could not tell a worker from the
    /// journal writer (docs/operations.md#threads).
    /// - Parameter name: at most ``kernelNameLimit`` bytes of UTF-8 (a longer one is cut for the
    ///   kernel at the last whole character that fits).
    public static func named(_ name: String, _ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread {
            setKernelName(name)
            body()
        }
        thread.name = name
        return thread
    }

    /// Names the calling thread `name` for the kernel, cut to ``kernelNameLimit`` bytes at the
    /// last whole character that fits. Does nothing off Linux.
    public static func setKernelName(_ name: String) {
        var bytes = Array(name.utf8.prefix(kernelNameLimit))
        if bytes.count < name.utf8.count {
            // Not inside a character: the first byte cut off must not be a continuation byte (10xxxxxx).
            var end = bytes.count
            while end > 0, name.utf8[name.utf8.index(name.utf8.startIndex, offsetBy: end)] & 0xC0 == 0x80 { end -= 1 }
            bytes.removeSubrange(end...)
        }
        bytes.append(0)
        _ = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { catbird_set_thread_name($0.baseAddress!) }
        }
    }
}
