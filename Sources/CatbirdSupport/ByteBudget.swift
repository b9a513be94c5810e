import Synchronization

/// A server-wide bound on bytes held in memory at once by many holders (request bodies being
/// received, forwarded answers waiting for their client: `--max-buffered-bodies`,
/// docs/operations.md#connections-and-memory). A holder takes bytes before it holds them and gives
/// them back when it lets them go; a take that would pass the limit is refused and takes
/// nothing. One atomic compare-and-swap a take, one atomic subtraction a give back.
public final class ByteBudget: Sendable {
    /// Bytes that may be taken at once, all holders together.
    public let limit: Int
    private let used = Atomic<Int>(0)

    /// - Parameter limit: bytes that may be taken at once (at least 1).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes `bytes` and returns true when, with them, at most `limit - reserve` bytes are
    /// taken; else takes nothing and returns false. `reserve` keeps the last bytes of the
    /// budget for other (smaller) holders.
    public func take(_ bytes: Int, leaving reserve: Int = 0) -> Bool {
        guard bytes > 0 else { return true }
        let ceiling = limit - reserve
        var current = used.load(ordering: .relaxed)
        while current + bytes <= ceiling {
            let (taken, found) = used.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if taken { return true }
            current = found
        }
        return false
    }

    /// Takes `bytes`, however many, when nothing is taken now; else takes nothing and returns
    /// false. For one holding larger than the whole budget (a control answer of a server whose
    /// budget is small), which may then go while it holds the budget alone.
    public func takeIfEmpty(_ bytes: Int) -> Bool {
        used.compareExchange(expected: 0, desired: bytes, ordering: .relaxed).exchanged
    }

    /// Whether `bytes` could be taken now leaving `reserve` (nothing is taken: a moment's
    /// answer, for refusing a declared body before reading it when it could not be held).
    public func hasRoom(for bytes: Int, leaving reserve: Int = 0) -> Bool {
        used.load(ordering: .relaxed) + bytes <= limit - reserve
    }

    /// Gives back `bytes` taken before.
    public func giveBack(_ bytes: Int) {
        if bytes > 0 { used.subtract(bytes, ordering: .relaxed) }
    }

    /// Bytes taken now (a moment's count; for tests, diagnostics and error reasons).
    public var taken: Int { used.load(ordering: .relaxed) }

    /// Holdings up to this size (64 KiB: a mock hit's JSON, a small control update) may take
    /// the budget's last bytes (``reserve(forHolding:largest:)``).
    public static let smallHolding = 64 * 1024

    /// The budget's last bytes a holder of `total` bytes must leave to others: none for a small
    /// holding (at most ``smallHolding``); for a larger one an eighth of the budget, less
    /// whatever would keep one holding of `largest` bytes from fitting into an empty budget. So
    /// while large uploads or answers wait, small ones (a mock hit's JSON, a control update)
    /// still get in.
    public func reserve(forHolding total: Int, largest: Int) -> Int {
        total <= Self.smallHolding ? 0 : max(0, min(limit / 8, limit - largest))
    }

    /// The first size a growing holding takes (``grow(_:toHold:largest:)``): 4 KiB, so that
    /// holders that received little hold little (tester finding try10b F2: 907 uploads that
    /// declared 50 MB or 64 KiB and sent 2 bytes each held the whole budget; at 4 KiB each, the
    /// 65,536 connections the server takes at most hold 256 MiB).
    public static let firstHolding = 4 * 1024

    /// Takes what a holding of `held` bytes lacks to hold `total`: it grows in doublings from
    /// ``firstHolding``, at most to `largest` (or `total`, when larger), so that one growing in
    /// small steps takes from the budget a few times, not at every step; the holder's
    /// ``reserve(forHolding:largest:)`` is left. Returns the holding's new size, or nil (nothing
    /// taken) when the budget cannot give it.
    public func grow(_ held: Int, toHold total: Int, largest: Int) -> Int? {
        guard total > held else { return held }
        let target = max(total, min(largest, max(held * 2, Self.firstHolding)))
        guard take(target - held, leaving: reserve(forHolding: target, largest: largest)) else { return nil }
        return target
    }
}

extension ByteBudget {
    /// Bytes taken from a budget that are given back when this object is released: what travels
    /// with a buffer handed from one holder to the next (a forwarded answer from the upstream
    /// client to the response that sends it), so that it is counted until the last one lets it
    /// go. Grows with ``grow(toHold:largest:)``; never shrinks before its release.
    ///
    /// `@unchecked Sendable`: ``bytes`` is written only by ``grow(toHold:largest:)``, which its one
    /// holder at a time calls (the upstream client's transfer thread while the answer arrives);
    /// handing it on to another thread goes through a lock or a queue, which orders the writes
    /// before the next holder's reads; `deinit` runs once, after the last holder let go.
    public final class Share: @unchecked Sendable {
        /// The budget the bytes were taken from.
        public let budget: ByteBudget
        /// Bytes taken so far.
        public private(set) var bytes = 0

        public init(of budget: ByteBudget) {
            self.budget = budget
        }

        /// Takes what ``bytes`` lacks to hold `total`, in doublings from ``ByteBudget/firstHolding`` up to `largest`
        /// (so a holding that grows in small steps takes from the budget a few times, not at
        /// every step), leaving the budget's ``ByteBudget/reserve(forHolding:largest:)``; false
        /// (nothing more taken) when the budget cannot give it.
        public func grow(toHold total: Int, largest: Int) -> Bool {
            guard let grown = budget.grow(bytes, toHold: total, largest: largest) else { return false }
            bytes = grown
            return true
        }

        /// Takes `total` bytes when this holding and the whole budget hold none
        /// (``ByteBudget/takeIfEmpty(_:)``); false, nothing taken, otherwise.
        public func takeAlone(_ total: Int) -> Bool {
            guard bytes == 0, budget.takeIfEmpty(total) else { return false }
            bytes = total
            return true
        }

        deinit {
            budget.giveBack(bytes)
        }
    }
}
