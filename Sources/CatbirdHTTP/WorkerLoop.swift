import CMicroHTTPD
import CatbirdSupport
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs one worker daemon (``WorkerDaemons``) on a thread of ours rather than libmicrohttpd's
/// own polling thread, so that resuming a parked connection costs no system call of its own.
///
/// Why: a daemon with its own polling thread is signalled on every `MHD_resume_connection`
/// (libmicrohttpd 0.9.75 writes its inter-thread `eventfd` each call, and its thread reads it),
/// i.e. twice per strict-durability answer, whose connections are resumed together after each
/// journal commit. A daemon started without `MHD_USE_INTERNAL_POLLING_THREAD` has no such
/// channel (0.9.75 drops `MHD_USE_ITC` for it: daemon.c, `MHD_start_daemon_va`):
/// `MHD_resume_connection` only marks the connection under the daemon's lock, and the next
/// `MHD_run` takes it back. So a resume from another thread calls ``wake()``, and only the first
/// since this loop last looked writes its `eventfd`: one wake-up for however many connections
/// a commit resumed. See
/// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dflow.html
///
/// The loop is `MHD_run_wait(daemon, -1)`: libmicrohttpd's own epoll wait, its own idle
/// timeouts. The `eventfd` sits in the daemon's epoll set (`MHD_DAEMON_INFO_EPOLL_FD`) with a
/// NULL data pointer, which 0.9.75's epoll loop skips, so it only ends the wait; the loop then
/// reads it. (Polling the daemon's epoll descriptor from an epoll set of our own would cost a
/// second `epoll_wait` per round, for every request.)
///
/// `MHD_add_connection` must run on the loop's thread for such a daemon, so the acceptor hands
/// new connections over (``hand(_:address:length:)``) and the loop adds them.
final class WorkerLoop: Sendable {
    /// A connection accepted by the acceptor, not yet added to the daemon.
    ///
    /// `@unchecked Sendable`: plain values (a descriptor and a copied address).
    private struct Handed: @unchecked Sendable {
        let socket: Int32
        var address: sockaddr_storage
        let length: socklen_t
    }

    /// Ends the daemon's epoll wait (``wake()``); non-blocking, closed at deinit (so a late
    /// ``wake()`` never writes to a reused descriptor).
    let wakeFD: Int32
    /// Set by the first ``wake()`` since the loop last took its wake-ups; those after it skip the write.
    let wakePending = Atomic<Bool>(false)
    /// Rounds of the loop run so far (`MHD_run_wait` calls), for tests.
    let rounds = Atomic<Int>(0)
    /// `eventfd` writes made by ``wake()`` so far (one per wake-up the loop is sent), for tests.
    let wakeWrites = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let handed = Mutex<[Handed]>([])
    /// Signalled once by the loop thread as it ends.
    private let ended = DispatchSemaphore(value: 0)

    /// Puts a wake-up `eventfd` into `daemon`'s epoll set; nil when that fails.
    init?(daemon: OpaquePointer) {
        let epoll = catbird_mhd_epoll_fd(daemon)
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard epoll >= 0, wakeFD >= 0, catbird_epoll_add_unmarked(epoll, wakeFD) == 0 else {
            if wakeFD >= 0 { close(wakeFD) }
            return nil
        }
        self.wakeFD = wakeFD
    }

    deinit {
        close(wakeFD)
    }

    /// The loop whose thread runs the caller (libmicrohttpd's callbacks run on it), or nil.
    static var current: WorkerLoop? {
        currentLoop.with { $0 }
    }

    /// Each loop thread's own loop (set while it runs), nil on every other thread.
    private static let currentLoop = PerThreadMemo<WorkerLoop?> { nil }

    /// Starts the loop thread running `daemon` (started without its own polling thread);
    /// `refused` is called on it for each handed connection `MHD_add_connection` refused
    /// (libmicrohttpd closed its socket).
    func start(_ daemon: OpaquePointer, name: String, refused: @escaping @Sendable () -> Void) {
        // `@unchecked Sendable`: the daemon pointer is used by this thread only, until stop().
        struct Daemon: @unchecked Sendable { let pointer: OpaquePointer }
        let target = Daemon(pointer: daemon)
        let thread = Thread.named(name) { [self] in
            Self.currentLoop.with { $0 = self }
            while !stopping.load(ordering: .acquiring) {
                _ = MHD_run_wait(target.pointer, -1)
                rounds.add(1, ordering: .relaxed)
                if wakePending.load(ordering: .relaxed) { takeWakeUp(target.pointer, refused: refused) }
            }
            Self.currentLoop.with { $0 = nil }
            ended.signal()
        }
        thread.start()
    }

    /// Makes the loop run `MHD_run` again soon (after an `MHD_resume_connection` from another
    /// thread, or a connection handed over). Cheap when a wake-up is already pending; inside
    /// ``wakingOnce(_:)`` only noted, and made when its body returns.
    func wake() {
        let heldBack = Self.heldWakeUps.with { loops in
            guard loops != nil else { return false }
            if !loops!.contains(where: { $0 === self }) { loops!.append(self) }
            return true
        }
        if heldBack { return }
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
        wakeWrites.add(1, ordering: .relaxed)
    }

    /// Runs `body`, holding back the wake-ups it asks for on this thread (``wake()``) until it
    /// returns, then wakes each loop once. For a group of resumes (one journal commit's strict
    /// answers): the loop's thread is not woken, and does not take the core from the caller, once
    /// per answer, and it then finds the whole group resumed.
    static func wakingOnce(_ body: () -> Void) {
        let outermost = heldWakeUps.with { loops in
            guard loops == nil else { return false }  // nested: the outer call wakes
            loops = []
            return true
        }
        guard outermost else { return body() }
        body()
        let loops = heldWakeUps.with { loops in
            defer { loops = nil }
            return loops ?? []
        }
        for loop in loops { loop.wake() }
    }

    /// The loops this thread's ``wakingOnce(_:)`` holds wake-ups back for (once each); nil
    /// outside it.
    private static let heldWakeUps = PerThreadMemo<[WorkerLoop]?> { nil }

    /// Hands a new connection to the loop, which adds it to the daemon (`MHD_add_connection`).
    func hand(_ socket: Int32, address: sockaddr_storage, length: socklen_t) {
        handed.withLock { $0.append(Handed(socket: socket, address: address, length: length)) }
        wake()
    }

    /// Clears the wake-up (before `MHD_run` looks for resumed connections again, so a resume
    /// after this writes the `eventfd` again) and adds the connections handed over.
    private func takeWakeUp(_ daemon: OpaquePointer, refused: @Sendable () -> Void) {
        var count: UInt64 = 0
        // Nothing to read: the waker that set the flag has not written yet. The flag stays set
        // (later wakers skip their write) and that write, when it comes, ends a wait and is read
        // then; cleared now, the write would stay unread and end every wait at once (a spin).
        // Whatever was resumed so far is taken by the next `MHD_run` either way.
        if read(wakeFD, &count, 8) == 8 {
            // An exchange, not a store: it reads the waker's write, so what the waker did before
            // (`MHD_resume_connection`) is seen by the next `MHD_run`.
            _ = wakePending.exchange(false, ordering: .acquiringAndReleasing)
        }
        // Moved out, not copied and cleared: clearing an array whose buffer the copy shares
        // allocates a new one, i.e. on every wake-up (strict durability: one per commit).
        let connections = handed.withLock { handed in
            var taken: [Handed] = []
            if !handed.isEmpty { swap(&taken, &handed) }
            return taken
        }
        for var connection in connections {
            let added = withUnsafePointer(to: &connection.address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon, connection.socket, $0, connection.length)
                }
            }
            if added != .YES { refused() }
        }
    }

    /// Ends the loop thread and waits for it; connections handed over but not added are closed
    /// (`refused` is called for each). The caller stops the daemon afterwards (`MHD_stop_daemon`).
    func stop(refused: @Sendable () -> Void) {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
        ended.wait()
        for connection in handed.withLock({ handed in defer { handed.removeAll() }; return handed }) {
            close(connection.socket)
            refused()
        }
    }
}
