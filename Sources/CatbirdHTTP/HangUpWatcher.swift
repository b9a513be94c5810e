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
/// set of its own for `EPOLLHUP`/`EPOLLERR` (the connection was reset, or failed), and for
/// `EPOLLRDHUP` (the peer's FIN) where that counts (``EndOfStream``; pipelined data is not an
/// event), on one thread, and reports the parked request's ticket.
///
/// A FIN alone does not tell a client that closed its socket from one that only shut down its
/// sending side and still reads (`shutdown(SHUT_WR)`, `nc -N`; RFC 9112 section 9.6 lets it).
/// Where it counts (``HTTPHangUpWatch/endOfStream``), an HTTP/1.1 client's socket is then sent
/// an interim `HTTP/1.1 100 Continue` (RFC 9110 section 15.2: an HTTP/1.1 client must accept an
/// unexpected 1xx before the final answer): a closed socket, or one shut down both ways,
/// answers data with a reset (`EPOLLERR`/`EPOLLHUP`, reported as gone); a half-closed one takes
/// it and gets its answer when it is due (try7b F3). An HTTP/1.0 client may be sent no 1xx: its
/// FIN counts as gone. Where it does not (``HTTPHangUpWatch/resetOnly``, a control request's
/// work), the FIN is not watched, no 100 is sent, and only a reset lets the client go
/// (tester finding T12-F1).
/// https://man7.org/linux/man-pages/man7/epoll.7.html
final class HangUpWatcher: Sendable {
    private let epoll: Int32
    /// Written by ``stop()`` to wake and end the thread.
    private let wake: Int32
    private static let wakeTicket = UInt64.max
    /// The watched sockets by ticket, and whether each may be probed (an HTTP/1.1 request not
    /// probed yet); nil once ``stop()`` ran: the thread then closes both descriptors, so no call
    /// may use them afterwards (the numbers could be reused by then). A socket is probed under
    /// this lock and only while it is here: ``forget(_:)`` (before libmicrohttpd resumes the
    /// connection and writes to it) takes it out first, so a probe never lands after or inside
    /// the answer.
    private let watched = Mutex<Watched?>(Watched())

    /// Each watched socket's ticket, and back (epoll reports the ticket, ``forget(_:)`` names
    /// the socket), with whether it may still be probed.
    private struct Watched {
        var byTicket: [UInt64: (socket: Int32, probe: Bool)] = [:]
        var ticketBySocket: [Int32: UInt64] = [:]
    }

    /// The interim answer that tells a half-closed client from a gone one.
    private static let probe = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

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
        let thread = Thread.named("catbird-hangups") { [self] in
            var events = [epoll_event](repeating: epoll_event(), count: 64)
            loop: while true {
                let count = epoll_wait(epoll, &events, Int32(events.count), -1)
                if count < 0 {
                    if errno == EINTR { continue }
                    break
                }
                for event in events.prefix(Int(count)) {
                    if event.data.u64 == Self.wakeTicket { break loop }
                    if !stillReading(event) { hungUp(event.data.u64) }
                }
            }
            close(epoll)
            close(wake)
        }
        // If start() is never followed by stop() the thread lives as long as the process.
        thread.start()
    }

    /// Ends the thread (and closes its descriptors). Safe to call twice.
    func stop() {
        watched.withLock { watched in
            guard watched != nil, wake >= 0 else { return }
            watched = nil
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }
    }

    /// What a FIN alone from a watched socket's client is taken for.
    enum EndOfStream {
        /// The client gone (an HTTP/1.0 request, which may be sent no 1xx).
        case gone
        /// Probed with `100 Continue`: gone if that resets, else watched for a reset only (an
        /// HTTP/1.1 request).
        case probed
        /// Nothing: not watched, the client may still read (``HTTPHangUpWatch/resetOnly``).
        case ignored

        /// What a FIN means for a request of HTTP `version` watched as `watch`.
        init(_ watch: HTTPHangUpWatch, version: String) {
            switch watch {
            case .resetOnly: self = .ignored
            case .endOfStream: self = version == "HTTP/1.1" ? .probed : .gone
            }
        }
    }

    /// Watches `socket` for a hang-up reported as `ticket`. Call ``forget(_:)`` before the
    /// connection is resumed.
    /// - Parameter endOfStream: what the client's FIN alone is taken for.
    func watch(_ socket: Int32, ticket: UInt64, endOfStream: EndOfStream) {
        guard epoll >= 0, socket >= 0 else { return }
        var event = epoll_event()
        // EPOLLHUP and EPOLLERR are always reported; EPOLLRDHUP only when asked for.
        event.events = EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLONESHOT.rawValue
        if endOfStream != .ignored { event.events |= EPOLLRDHUP.rawValue }
        event.data.u64 = ticket
        watched.withLock { watched in
            guard watched != nil else { return }
            watched?.byTicket[ticket] = (socket, endOfStream == .probed)
            watched?.ticketBySocket[socket] = ticket
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event)
        }
    }

    /// Stops watching `socket` (before libmicrohttpd resumes, and later closes, it).
    func forget(_ socket: Int32) {
        guard epoll >= 0, socket >= 0 else { return }
        watched.withLock { watched in
            guard watched != nil else { return }
            if let ticket = watched?.ticketBySocket.removeValue(forKey: socket) { watched?.byTicket[ticket] = nil }
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, nil)
        }
    }

    /// Whether `event` is a FIN alone from a client that still reads: its socket, not probed
    /// yet, took the `100 Continue` probe, and is watched again for a reset only. False (the
    /// client is gone) for a reset or error, a socket that may not be probed or was probed
    /// already, or one the probe could not be written to; also false for a socket forgotten
    /// meanwhile (its connection is being resumed: the report finds no parked entry).
    private func stillReading(_ event: epoll_event) -> Bool {
        guard event.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) == 0 else { return false }
        let ticket = event.data.u64
        return watched.withLock { watched in
            guard let entry = watched?.byTicket[ticket], entry.probe else { return false }
            watched?.byTicket[ticket] = (entry.socket, false)
            let sent = Self.probe.withUnsafeBytes {
                send(entry.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            guard sent == Self.probe.count else { return false }
            var again = epoll_event()
            again.events = EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLONESHOT.rawValue
            again.data.u64 = ticket
            return epoll_ctl(epoll, EPOLL_CTL_MOD, entry.socket, &again) == 0
        }
    }
}
