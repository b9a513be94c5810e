import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices when the client of a parked connection hangs up.
///
/// libmicrohttpd stops polling a suspended connection, so a client that gives up during a
/// delay would go unnoticed until the delay ends. This watches each parked socket in an epoll
/// set of its own for `EPOLLRDHUP`/`EPOLLHUP` (the peer closed; pipelined data is not an event)
/// on one thread, and reports the parked request's ticket. A half-closed client (shut down its
/// sending side, still reading) counts as gone, as libmicrohttpd itself treats a read of 0.
/// https://man7.org/linux/man-pages/man7/epoll.7.html
final class HangUpWatcher: Sendable {
    private let epoll: Int32
    /// Written by ``stop()`` to wake and end the thread.
    private let wake: Int32
    private static let wakeTicket = UInt64.max
    /// False once ``stop()`` ran: the thread then closes both descriptors, so no call may use
    /// them afterwards (the numbers could be reused by then).
    private let open = Mutex(true)

    init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_CLOEXEC))
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeTicket
        if epoll >= 0, wake >= 0 { _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) }
    }

    /// Starts the watching thread; `hungUp` is called on it with the ticket of each socket
    /// whose client went, at most once per ``watch(_:ticket:)``.
    func start(hungUp: @escaping @Sendable (UInt64) -> Void) {
        guard epoll >= 0, wake >= 0 else { return }
        let (epoll, wake) = (self.epoll, self.wake)
        let thread = Thread {
            var events = [epoll_event](repeating: epoll_event(), count: 64)
            loop: while true {
                let count = epoll_wait(epoll, &events, Int32(events.count), -1)
                if count < 0 {
                    if errno == EINTR { continue }
                    break
                }
                for event in events.prefix(Int(count)) {
                    if event.data.u64 == Self.wakeTicket { break loop }
                    hungUp(event.data.u64)
                }
            }
            close(epoll)
            close(wake)
        }
        // If start() is never followed by stop() the thread lives as long as the process.
        thread.name = "catbird-hangups"
        thread.start()
    }

    /// Ends the thread (and closes its descriptors). Safe to call twice.
    func stop() {
        open.withLock { open in
            guard open, wake >= 0 else { return }
            open = false
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }
    }

    /// Watches `socket` for a hang-up reported as `ticket`. Call ``forget(_:)`` before the
    /// connection is resumed.
    func watch(_ socket: Int32, ticket: UInt64) {
        guard epoll >= 0, socket >= 0 else { return }
        var event = epoll_event()
        event.events = EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLONESHOT.rawValue
        event.data.u64 = ticket
        open.withLock { if $0 { _ = epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) } }
    }

    /// Stops watching `socket` (before libmicrohttpd resumes, and later closes, it).
    func forget(_ socket: Int32) {
        guard epoll >= 0, socket >= 0 else { return }
        open.withLock { if $0 { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil) } }
    }
}
