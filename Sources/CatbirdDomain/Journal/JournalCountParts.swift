import Dispatch
import Synchronization

/// One count's id range cut into consecutive parts that its caller and, when one was free, a
/// spare thread take one at a time (whoever is free takes the next part), summing what each
/// counted (``Journal/count(of:matching:timeLimit:)``). The parts cover the range exactly once
/// whoever takes them, so the sum is the count of one statement over the whole range; a spare
/// thread slowed by other work holds the caller up for at most the part it is on.
final class JournalCountParts: Sendable {
    /// Ids after `after`, up to and including `through`.
    struct Part: Sendable, Equatable {
        let after: Int64
        let through: Int64
    }

    private struct State {
        var next = 0
        var total: Int64 = 0
        var failure: (any Error)?
    }

    let parts: [Part]
    private let state = Mutex(State())
    private let countPart: @Sendable (Part) throws -> Int64
    private let helperDone = DispatchSemaphore(value: 0)
    private let statistics: JournalCountStatistics

    /// - Parameters:
    ///   - after, through: the range: ids after `after`, up to and including `through`.
    ///   - partCount: how many parts (at least 1; fewer when the range holds fewer ids).
    ///   - statistics: where each part counted is added, by who counted it.
    ///   - countPart: counts the matching rows of one part (on a read connection of its own).
    init(
        after: Int64, through: Int64, partCount: Int, statistics: JournalCountStatistics,
        _ countPart: @escaping @Sendable (Part) throws -> Int64
    ) {
        let span = max(0, through - after)
        let count = Int64(max(1, min(Int64(partCount), span)))
        parts = (0..<count).map { index in
            Part(after: after + span * index / count, through: after + span * (index + 1) / count)
        }
        self.statistics = statistics
        self.countPart = countPart
    }

    /// What a spare thread runs: takes parts until none is left, then tells the caller.
    func help() {
        takeParts(counted: statistics.partsBySpareThread)
        helperDone.signal()
    }

    /// Takes parts until none is left, then waits for the helper (when `helped`: ``help()``
    /// was started) and answers the sum.
    /// - Throws: the first error a part threw (no part is started after it).
    func total(helped: Bool) throws -> Int64 {
        takeParts(counted: statistics.partsByCaller)
        if helped { helperDone.wait() }
        return try state.withLock { state in
            if let failure = state.failure { throw failure }
            return state.total
        }
    }

    /// - Parameter counted: the statistic each part counted here is added to.
    private func takeParts(counted: borrowing Atomic<Int>) {
        while let part = state.withLock({ state -> Part? in
            guard state.next < parts.count else { return nil }
            defer { state.next += 1 }
            return parts[state.next]
        }) {
            do {
                let count = try countPart(part)
                state.withLock { $0.total += count }
                counted.add(1, ordering: .relaxed)
            } catch {
                state.withLock { state in
                    if state.failure == nil { state.failure = error }
                    state.next = parts.count
                }
            }
        }
    }
}

/// How the parts of shared counts were counted since the server started (``JournalCountParts``;
/// `/catbird/metrics`' `catbird_journal_count_parts_total`): by the count's caller, or by a
/// spare thread beside it.
public final class JournalCountStatistics: Sendable {
    /// Parts the calling control thread counted.
    public let partsByCaller = Atomic<Int>(0)
    /// Parts a spare thread (``Journal/countHelpers``) counted.
    public let partsBySpareThread = Atomic<Int>(0)

    public init() {}
}
