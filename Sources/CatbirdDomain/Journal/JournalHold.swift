import Synchronization

/// A journal entry held out of the writer's queue until there is room for it in its tenant's
/// share (``JournalWriter/appendOrHold(_:)``): the ticket it gets once queued, handed to
/// whoever waits for it (the request's answer, which leaves only then).
///
/// The writer may queue the entry before its waiter registers, or after: ``whenQueued(_:)``
/// calls at once in the first case, from the writer thread in the second.
public final class JournalHold: Sendable {
    private enum State {
        case waiting
        case waiter(@Sendable (JournalTicket) -> Void)
        case queued(JournalTicket)
    }

    private let state = Mutex(State.waiting)
    private let replaced = Atomic<Bool>(false)

    init() {}

    /// Whether its entry was replaced while held (``JournalWriter/replaceHeld(_:with:)``): set
    /// before the writer can queue the replacement, so a waiter told of the ticket afterwards
    /// (``whenQueued(_:)``) sees it.
    public var isReplaced: Bool { replaced.load(ordering: .acquiring) }

    /// Called by the writer, under its lock, when it replaces the held entry.
    func markReplaced() { replaced.store(true, ordering: .releasing) }

    /// Calls `body` with the entry's ticket once it is queued (``JournalTicket/dropped`` when it
    /// was dropped: the writer stopped, or failed while the whole queue had no room for it for
    /// ``JournalWriter/appendPatience``, as a plain append's would be):
    /// at once when it already is, else on the writer thread, so `body` must return quickly.
    /// Call it once.
    public func whenQueued(_ body: @escaping @Sendable (JournalTicket) -> Void) {
        let ticket: JournalTicket? = state.withLock { state in
            guard case let .queued(ticket) = state else {
                state = .waiter(body)
                return nil
            }
            return ticket
        }
        if let ticket { body(ticket) }
    }

    /// Called by the writer, outside its lock, once the entry is queued (or dropped).
    func queued(_ ticket: JournalTicket) {
        let waiter: (@Sendable (JournalTicket) -> Void)? = state.withLock { state in
            defer { state = .queued(ticket) }
            guard case let .waiter(body) = state else { return nil }
            return body
        }
        waiter?(ticket)
    }
}

/// What ``JournalWriter/appendOrHold(_:)`` did with an entry.
public enum JournalAppend: Sendable {
    /// Queued now, with this ticket.
    case queued(JournalTicket)
    /// Held until its tenant's share has room (``JournalHold/whenQueued(_:)``).
    case held(JournalHold)
}
