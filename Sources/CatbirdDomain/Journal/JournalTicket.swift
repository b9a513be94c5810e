/// An appended journal entry's place in the writer's queue (``JournalWriter/append(_:)``):
/// the n-th entry appended since the writer started, 1-based; 0 for an entry that was dropped
/// because the writer had stopped.
public struct JournalTicket: Sendable, Equatable {
    let sequence: UInt64

    /// The ticket of an entry that was never queued.
    static let dropped = JournalTicket(sequence: 0)

    init(sequence: UInt64) {
        self.sequence = sequence
    }

    /// The ticket as the number an answer carries to the HTTP layer (`HTTPResponse.completionTag`),
    /// which hands it back when the answer was cut short: 0 for ``dropped`` (nothing is told).
    public var completionTag: UInt64 { sequence }

    /// The ticket a ``completionTag`` stands for.
    public init(completionTag: UInt64) {
        self.init(sequence: completionTag)
    }
}

/// Strict durability's bookkeeping inside ``JournalWriter``: who waits for which ticket, and
/// which tickets were dropped. Not thread-safe: the writer keeps it under its lock.
struct CommitWaiters {
    /// Waiting callbacks by ticket; tickets arrive in any order (a request may ask after a
    /// later one), so the writer takes every one up to its commit.
    private var waiting: [(sequence: UInt64, done: @Sendable (Bool) -> Void)] = []
    /// Ticket ranges whose batch was dropped, oldest first; adjacent ranges are merged, and
    /// only the last ``remembered`` are kept (a waiter asks within moments of its append).
    private var droppedRanges: [ClosedRange<UInt64>] = []
    private static let remembered = 256

    /// No callback waits for a commit.
    var isEmpty: Bool { waiting.isEmpty }

    /// Callbacks waiting.
    var count: Int { waiting.count }

    mutating func add(_ ticket: JournalTicket, _ done: @escaping @Sendable (Bool) -> Void) {
        waiting.append((ticket.sequence, done))
    }

    /// Removes and returns the callbacks waiting for tickets up to `sequence`.
    mutating func take(through sequence: UInt64) -> [@Sendable (Bool) -> Void] {
        guard !waiting.isEmpty else { return [] }
        var taken: [@Sendable (Bool) -> Void] = []
        waiting.removeAll { waiter in
            guard waiter.sequence <= sequence else { return false }
            taken.append(waiter.done)
            return true
        }
        return taken
    }

    mutating func dropped(_ range: ClosedRange<UInt64>) {
        if let last = droppedRanges.last, last.upperBound + 1 == range.lowerBound {
            droppedRanges[droppedRanges.count - 1] = last.lowerBound...range.upperBound
        } else {
            droppedRanges.append(range)
            if droppedRanges.count > Self.remembered { droppedRanges.removeFirst() }
        }
    }

    func wasDropped(_ ticket: JournalTicket) -> Bool {
        droppedRanges.contains { $0.contains(ticket.sequence) }
    }
}
