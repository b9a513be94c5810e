import CMicroHTTPD
import CatbirdSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices a chunked request body that libmicrohttpd stopped reading because one chunk-size
/// line (the size and its chunk extensions, `5;eeee…`) does not fit its read buffer.
///
/// libmicrohttpd 0.9.75 reads a chunk-size line whole into the connection memory
/// (``HTTPServer/Configuration/connectionMemoryLimit``, 32 KiB, less the request's head) before
/// it parses it. A longer line fills the buffer: it then reads nothing more, calls nothing,
/// answers nothing, and the client that sent its whole request waits for the idle timeout
/// (120 s), journaled as a time-out (try7b F6: a 40,000-byte extension). Only a chunked body
/// can meet this (a `Content-Length` body is passed on as it arrives), so each one is watched
/// from its head to its end: every ``tick`` (250 ms) that finds it has received no body bytes
/// since the last one while bytes of it wait unread in the socket's receive queue and its
/// worker loop has run meanwhile (so libmicrohttpd could have read them, and did not) counts;
/// ``stalledTicks`` in a row (1 s) and the request is refused on its socket with 413
/// (``HTTPRequestProblem/chunkLineTooLong(limit:)``, journaled by the handler), its unread
/// bytes read and dropped first so that closing the socket resets nothing the client still has
/// to read. A worker busy with something else runs no rounds, so its waiting uploads are never
/// taken for stalled.
final class ChunkLineWatch: Sendable {
    /// How often the watched bodies are looked at.
    static let tickInterval: Duration = .milliseconds(250)
    /// Ticks in a row without progress that make a body stalled: 4 (1 s).
    static let stalledTicks = 4
    /// The most unread bytes dropped before a refusal is written (the rest of the request).
    private static let maxDrained = 1 << 20

    /// `@unchecked Sendable`: the connection pointer is only used while the entry exists, i.e.
    /// before the request's completion callback (which forgets it under the same lock) returns;
    /// the context's fields are read by ``tick`` only under that lock, which the worker holds
    /// while it adds body bytes (``bodyArrived(_:_:)``).
    private struct Watched: @unchecked Sendable {
        let context: RequestContext
        let connection: OpaquePointer
        let socket: Int32
        let loop: WorkerLoop?
        /// Refuses the stalled request on its socket (``ServerCore/refuseStalledChunkLine(_:_:)``).
        let refuse: @Sendable (RequestContext, OpaquePointer) -> Void
        var received: Int
        var unread: Int32 = 0
        var rounds: Int
        var quietTicks = 0
    }

    private struct State {
        var watched: [ObjectIdentifier: Watched] = [:]
        var ticking = false
    }

    private let state = Mutex(State())

    /// Starts watching the chunked body of `context` (on its worker, once its head is
    /// accepted); `refuse` answers it on its socket should it stall (called on the watch's
    /// thread, under its lock).
    func watch(
        _ context: RequestContext, _ connection: OpaquePointer, refuse: @escaping @Sendable (RequestContext, OpaquePointer) -> Void
    ) {
        let socket = catbird_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        let loop = WorkerLoop.current
        let first = state.withLock { state in
            state.watched[ObjectIdentifier(context)] = Watched(
                context: context, connection: connection, socket: socket, loop: loop, refuse: refuse, received: context.bodySizeSeen,
                rounds: loop?.rounds.load(ordering: .relaxed) ?? 0)
            defer { state.ticking = true }
            return !state.ticking
        }
        if first { startTicking() }
    }

    /// Runs `add` (the worker adding body bytes to `context`) unless the body was refused as
    /// stalled meanwhile; returns whether it ran (false: close the connection).
    func bodyArrived(_ context: RequestContext, _ add: () -> Void) -> Bool {
        state.withLock { state in
            guard state.watched[ObjectIdentifier(context)] != nil else { return !context.handled }
            add()
            return true
        }
    }

    /// Stops watching `context` (its body ended, or its connection did); false when it had
    /// been refused as stalled (the access handler then closes the connection).
    func forget(_ context: RequestContext) -> Bool {
        state.withLock { state in
            state.watched.removeValue(forKey: ObjectIdentifier(context)) != nil || !context.handled
        }
    }

    /// A thread that looks every ``tickInterval`` while any body is watched, then ends (started
    /// again by the next ``watch(_:_:refuse:)``). A thread that sleeps, not a Dispatch timer:
    /// libdispatch's first timer opens an epoll, an eventfd and a timerfd in the process for
    /// good, which WireFuzzTests counts as descriptors leaked.
    private func startTicking() {
        let thread = Thread.named("catbird-chunks") { [weak self] in
            while true {
                Thread.sleep(forTimeInterval: Self.tickInterval.timeInterval)
                guard let self, self.tick() else { return }
            }
        }
        thread.start()
    }

    /// One look at every watched body; refuses those stalled, under the lock (so their worker,
    /// should it read again after all, finds them refused and adds nothing). Returns whether
    /// any body is still watched.
    private func tick() -> Bool {
        let again = state.withLock { state in
            for (key, var entry) in state.watched {
                let received = entry.context.bodySizeSeen
                let rounds = entry.loop?.rounds.load(ordering: .relaxed) ?? 0
                let unread = catbird_socket_unread_bytes(entry.socket)
                let quiet = received == entry.received && unread > 0 && unread == entry.unread
                entry.quietTicks = quiet ? entry.quietTicks + 1 : 0
                entry.received = received
                entry.unread = unread
                if entry.quietTicks == 1 {
                    // Its loop must run a round, and libmicrohttpd leave the bytes unread, first.
                    entry.rounds = rounds
                    entry.loop?.wake()
                }
                // Two rounds past the wake: the round under way when it was asked for may have
                // begun before the bytes came, so it proves nothing (review of this change).
                if entry.quietTicks >= Self.stalledTicks {
                    if rounds >= entry.rounds &+ 2 {
                        state.watched[key] = nil
                        Self.drain(entry.socket)
                        entry.refuse(entry.context, entry.connection)
                        continue
                    }
                    entry.loop?.wake()  // one more round, begun after the bytes came
                }
                state.watched[key] = entry
            }
            state.ticking = !state.watched.isEmpty
            return state.ticking
        }
        return again
    }

    /// Reads and drops what waits unread on `socket` (at most ``maxDrained`` bytes).
    private static func drain(_ socket: Int32) {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var total = 0
        while total < maxDrained {
            let read = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard read > 0 else { return }
            total += read
        }
    }
}
