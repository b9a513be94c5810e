#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time the calling thread has used (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): a budget
/// of work counted on it is spent only while the thread runs, so a thread descheduled on a
/// loaded machine does not run out of it, unlike a deadline on the wall clock.
enum ThreadCPUTime {
    /// The calling thread's CPU time so far (zero when the clock cannot be read).
    static func now() -> Duration {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return .zero }
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
