import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's worker threads: one libmicrohttpd daemon per worker, each polling its own
/// connections with epoll on its own thread (``WorkerLoop``: ours, not libmicrohttpd's, so a
/// commit's resumes wake it once), and one acceptor thread of ours that accepts every new
/// connection on the listening socket and hands it to a worker (`MHD_add_connection`).
///
/// Why not libmicrohttpd's own thread pool: there every worker polls the shared listening
/// socket, and whichever wakes first accepts all the connections waiting, so a burst of new
/// connections (a load generator's, a test suite's connection pool) often lands on one
/// worker whole and the other cores idle (measured with `catbird-bare-mhd`: 55,000 against
/// 113,000 req/s from one run to the next). Handing a connection to a pool with
/// `MHD_add_connection` does not help: 0.9.75 then picks the worker by socket number modulo
/// the pool size. So each worker is a daemon of its own, and the acceptor chooses
/// (``choose(_:after:)``): a worker not inside a callback now (one busy with a slow request
/// does not take new clients, as with libmicrohttpd's own accepting), with the fewest open
/// connections, ties taken in turn.
///
/// `package`: the bare-handler benchmark (Benchmarks/BareMHD) starts its daemons through it, so
/// its ceiling is measured with the same set-up.
package final class WorkerDaemons: Sendable {
    /// The libmicrohttpd callbacks each worker daemon calls, and the pointer they get as `cls`.
    package struct Callbacks: @unchecked Sendable {
        // `@unchecked Sendable`: C function pointers and an opaque pointer the caller keeps alive
        // (and safe to use from the worker threads) until ``WorkerDaemons/stop()`` returns.
        package var access: MHD_AccessHandlerCallback
        package var completed: MHD_RequestCompletedCallback?
        package var requestStarted: catbird_mhd_uri_log_callback?
        package var context: UnsafeMutableRawPointer?
        /// Keeps a record of each connection in its socket context, and makes room at the
        /// connection limit (``ConnectionWatch``); nil: none (the bare-handler benchmark).
        var watch: ConnectionWatch?

        package init(
            access: MHD_AccessHandlerCallback, completed: MHD_RequestCompletedCallback? = nil,
            requestStarted: catbird_mhd_uri_log_callback? = nil, context: UnsafeMutableRawPointer? = nil
        ) {
            self.access = access
            self.completed = completed
            self.requestStarted = requestStarted
            self.context = context
        }
    }

    /// One worker daemon and what the acceptor reads to choose it.
    ///
    /// `@unchecked Sendable`: `daemon`, `loop` and `callbacks` are set once before any thread
    /// sees the worker; the daemon is run by its loop's thread only (connections are added there
    /// too), then stopped by ``WorkerDaemons/stop()`` after that thread ended; the counters are
    /// atomics.
    final class Worker: @unchecked Sendable {
        fileprivate(set) var daemon: OpaquePointer?
        /// The thread running `daemon`.
        fileprivate(set) var loop: WorkerLoop?
        let callbacks: Callbacks
        /// Connections handed to this worker and not closed yet.
        let connections = Atomic<Int>(0)
        /// True while the worker's thread runs the access handler.
        let busy = Atomic<Bool>(false)
        /// Told when one of this worker's connections closes (shared by all workers).
        let freedSlot: FreedSlot

        init(callbacks: Callbacks, freedSlot: FreedSlot) {
            self.callbacks = callbacks
            self.freedSlot = freedSlot
        }
    }

    /// How the acceptor, waiting at the connection limit, learns that a connection closed: it
    /// sets `waiting` and sleeps on `semaphore`; the close that finds `waiting` set signals it.
    final class FreedSlot: Sendable {
        let waiting = Atomic<Bool>(false)
        let semaphore = DispatchSemaphore(value: 0)

        func notify() { if waiting.exchange(false, ordering: .acquiringAndReleasing) { semaphore.signal() } }
    }

    let workers: [Worker]
    /// Open connections at most over all workers; more clients wait in the listen backlog.
    let connectionLimit: Int
    private let listener: Int32
    /// The port listened on.
    package let port: UInt16
    private let stopping = Atomic<Bool>(false)
    /// Signalled once by the acceptor thread as it ends.
    private let acceptorEnded = DispatchSemaphore(value: 0)

    private init(workers: [Worker], listener: Int32, connectionLimit: Int) {
        self.workers = workers
        self.listener = listener
        self.connectionLimit = connectionLimit
        port = ListeningSocket.port(of: listener)
    }

    /// Binds `configuration`'s address, starts a daemon per worker thread with `flags` and the
    /// configuration's idle timeout, connection memory and limit, and starts accepting.
    /// - Throws: ``HTTPServerError/cannotResolve(host:reason:)``, or
    ///   ``HTTPServerError/cannotListen(host:port:)`` when the address cannot be bound or a
    ///   daemon cannot start.
    package static func start(
        _ configuration: HTTPServer.Configuration, flags: UInt32, callbacks: Callbacks
    ) throws(HTTPServerError) -> WorkerDaemons {
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        guard let listener = ListeningSocket.open(address) else {
            throw .cannotListen(host: configuration.host, port: configuration.port)
        }
        let freedSlot = FreedSlot()
        let workers = (0..<configuration.threadCount).map { _ in Worker(callbacks: callbacks, freedSlot: freedSlot) }
        for worker in workers {
            // Each daemon may hold the whole limit: the acceptor keeps the sum within it.
            worker.daemon = catbird_mhd_start_worker(
                flags, UInt32(configuration.idleTimeoutSeconds), configuration.connectionMemoryLimit,
                UInt32(configuration.connectionLimit), accessHandler, Unmanaged.passUnretained(worker).toOpaque(),
                callbacks.completed, callbacks.requestStarted, callbacks.context,
                connectionNotice, Unmanaged.passUnretained(worker).toOpaque())
            worker.loop = worker.daemon.flatMap { WorkerLoop(daemon: $0) }
            if worker.loop == nil {
                for started in workers { if let daemon = started.daemon { MHD_stop_daemon(daemon) } }
                close(listener)
                throw .cannotListen(host: configuration.host, port: configuration.port)
            }
        }
        for worker in workers {
            worker.loop?.start(worker.daemon!, name: "catbird-worker") { worker.connections.subtract(1, ordering: .relaxed) }
        }
        let group = WorkerDaemons(workers: workers, listener: listener, connectionLimit: configuration.connectionLimit)
        let thread = Thread.named("catbird-accept") { [group] in
            group.accept()
            group.acceptorEnded.signal()
        }
        thread.start()
        return group
    }

    /// Marks the worker busy around the caller's access handler (the acceptor's choice reads it).
    private static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, data, size, slot in
        let worker = Unmanaged<Worker>.fromOpaque(cls!).takeUnretainedValue()
        worker.busy.store(true, ordering: .relaxed)
        defer { worker.busy.store(false, ordering: .relaxed) }
        return worker.callbacks.access(worker.callbacks.context, connection, url, method, version, data, size, slot)
    }

    /// MHD_OPTION_NOTIFY_CONNECTION: a new connection gets its ``ConnectionWatch`` record in its
    /// socket context; a closed one gives it up and leaves its worker's count.
    private static let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        let worker = Unmanaged<Worker>.fromOpaque(cls!).takeUnretainedValue()
        guard code.rawValue == 1 else {  // MHD_CONNECTION_NOTIFY_STARTED
            if let watch = worker.callbacks.watch, let connection, let socketContext {
                socketContext.pointee = watch.opened(socket: catbird_mhd_connection_fd(connection))
            }
            return
        }
        if let watch = worker.callbacks.watch, let record = socketContext?.pointee {
            socketContext?.pointee = nil
            watch.closed(record)
        }
        worker.connections.subtract(1, ordering: .relaxed)
        worker.freedSlot.notify()
    }

    /// How many clients wait in the listening socket's backlog (its accept queue; 0 when it
    /// cannot be read): one `TCP_INFO` read.
    private func clientsWaiting() -> Int {
        max(0, Int(catbird_listen_queue_length(listener)))
    }

    /// The acceptor thread: waits while the connection limit is reached (clients then wait in
    /// the backlog; the idle connections seen longest are closed first, ``ConnectionWatch/makeRoom(_:)``) until a connection closes (or 100 ms, the bound for a close it missed), accepts, hands the connection to the chosen worker; ends when
    /// ``stopAccepting()`` shuts the listening socket down.
    private func accept() {
        var next = 0
        var address = sockaddr_storage()
        var wasFull = false
        while !stopping.load(ordering: .acquiring) {
            if openConnections >= connectionLimit {
                if !wasFull { workers[0].callbacks.watch?.counts.noteLimitReached() }
                wasFull = true
                // Room for the clients waiting: the connections idle longest go first (of a
                // holder past its share, first; with clients in the backlog, its briefly idle ones too).
                if let watch = workers[0].callbacks.watch {
                    _ = watch.makeRoom(max(1, connectionLimit / 64), slots: connectionLimit, clientsWaiting: clientsWaiting())
                }
                let freedSlot = workers[0].freedSlot
                freedSlot.waiting.store(true, ordering: .sequentiallyConsistent)
                if openConnections >= connectionLimit && !stopping.load(ordering: .acquiring) {
                    _ = freedSlot.semaphore.wait(timeout: .now() + .milliseconds(100))
                }
                freedSlot.waiting.store(false, ordering: .sequentiallyConsistent)
                continue
            }
            wasFull = false
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = catbird_accept(listener, &address, &length)
            guard client >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED, EAGAIN, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: usleep(10_000)  // out of descriptors or memory: retry soon
                default:
                    if stopping.load(ordering: .acquiring) { return }
                    usleep(10_000)
                }
                continue
            }
            var sendBuffer = Self.sendBufferBytes
            setsockopt(client, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
            let worker = Self.choose(workers, after: &next)
            worker.connections.add(1, ordering: .relaxed)
            // Its loop adds it (`MHD_add_connection`); one refused (out of memory: libmicrohttpd
            // closed the socket) leaves the count there. A connection it takes but then fails to
            // start (out of memory) is closed without a notice and stays counted.
            worker.loop!.hand(client, address: address, length: length)
        }
    }

    /// The send buffer each accepted connection gets (`SO_SNDBUF`, which Linux doubles): 256 KiB.
    /// libmicrohttpd's idle timeout counts from its last successful write, and Linux wakes a
    /// writer only once about a third of the send buffer is free again: on loopback, whose
    /// buffer grows by itself to 4 MiB, a client reading a large answer steadily at 8 KB/s freed
    /// that third too slowly, so the 120 s timeout cut its download while it read all along
    /// (tester finding tester58a-F10). Bounded, a third is about 170 KB: a client reading at
    /// least about 1.5 KB/s keeps its connection.
    static let sendBufferBytes: Int32 = 256 << 10

    /// Connections handed to workers and not closed yet, over all workers.
    private var openConnections: Int { workers.reduce(0) { $0 + $1.connections.load(ordering: .sequentiallyConsistent) } }

    /// The worker for a new connection: among those not running the access handler (all, when
    /// every one is), the one with the fewest connections; ties go to the first after `next`,
    /// and `next` moves past the one chosen.
    static func choose(_ workers: [Worker], after next: inout Int) -> Worker {
        var chosen = next % workers.count
        var best = (busy: true, connections: Int.max)
        for offset in 0..<workers.count {
            let index = (next + offset) % workers.count
            let load = (busy: workers[index].busy.load(ordering: .relaxed), connections: workers[index].connections.load(ordering: .relaxed))
            if (!load.busy && best.busy) || (load.busy == best.busy && load.connections < best.connections) {
                (chosen, best) = (index, load)
            }
        }
        next = chosen + 1
        return workers[chosen]
    }

    /// Stops accepting: shuts the listening socket down, waits for the acceptor thread to end,
    /// closes the socket (the port is free again). Connections already handed to workers stay.
    /// Safe to call twice.
    package func stopAccepting() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        workers[0].freedSlot.semaphore.signal()  // an acceptor waiting at the limit ends now
        acceptorEnded.wait()
        close(listener)
    }

    /// Stops accepting, then ends every worker's loop thread and stops its daemon
    /// (`MHD_stop_daemon`: closes its connections). Call once.
    package func stop() {
        stopAccepting()
        for worker in workers {
            worker.loop?.stop { worker.connections.subtract(1, ordering: .relaxed) }
            if let daemon = worker.daemon { MHD_stop_daemon(daemon) }
        }
    }
}
