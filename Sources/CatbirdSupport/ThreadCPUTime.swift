#if canImport(Glibc)
import Glibc
#endif

/// The CPU time the calling thread has run so far (`CLOCK_THREAD_CPUTIME_ID`, clock_gettime(2)).
/// Unlike a wall clock it stands still while the thread waits for a core, so a span of it is
/// the thread's own work, however busy the machine is. A system call (no vDSO shortcut for this
/// clock): about as costly as a `getpid`, so read it where a span must not count waiting, not
/// per byte. https://man7.org/linux/man-pages/man2/clock_gettime.2.html
public enum ThreadCPUTime {
    /// The calling thread's CPU time so far; `.zero` when the clock cannot be read (spans then
    /// come out as zero: nothing measured counts as long).
    public static func now() -> Duration {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
