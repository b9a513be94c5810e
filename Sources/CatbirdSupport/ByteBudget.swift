import Synchronization

/// A server-wide bound on bytes held in memory at once by many holders (request bodies being
/// received, forwarded answers waiting for their client: `--max-buffered-bodies`,
/// docs/operations.md#connections-and-memory). A holder takes bytes before it holds them and gives
/// them back when it lets them go; a take that would pass the limit is refused and takes
/// nothing. One atomic compare-and-swap a take, one atomic subtraction a give back.
///
/// Takes may name who holds them (a ``Holder``: the server's tenants). A holder may take up to
/// ``holderShare`` bytes (the server's: one of the largest bodies) like any other; past it, only
/// while ``holderShare`` bytes stay free besides the reserve the take leaves
/// (docs/tenancy.md#fair-shares), so that one holder's many
/// large holdings never keep another holder's largest one out (tester finding tester39b-F8: one
/// tenant's four concurrent uploads made another tenant's one upload fail with 503). Named takes
/// and give backs also pass a lock around a table of what each holder holds.
public final class ByteBudget: Sendable {
    /// Bytes that may be taken at once, all holders together.
    public let limit: Int
    /// Bytes a named ``Holder`` may hold before its further takes must leave this many bytes
    /// free for others; ``limit`` (the default) turns the rule off.
    public let holderShare: Int
    private let used = Atomic<Int>(0)
    /// Bytes held per named holder (only while ``holderShare`` is below ``limit``); a holder
    /// that holds none has no entry.
    private let held = Mutex<[Holder: Int]>([:])

    /// Who holds bytes of a budget: a tenant, named by the bytes of its parallel id (compared
    /// byte for byte, as tenants are; "" for the default tenant).
    public struct Holder: Hashable, Sendable {
        public let name: [UInt8]

        public init(_ name: String) {
            self.name = Array(name.utf8)
        }
    }

    /// - Parameters:
    ///   - limit: bytes that may be taken at once (at least 1).
    ///   - holderShare: bytes one named holder may hold before it must leave as many free
    ///     (between 1 and `limit`); nil: `limit`, no per-holder rule.
    public init(limit: Int, holderShare: Int? = nil) {
        self.limit = max(1, limit)
        self.holderShare = min(self.limit, max(1, holderShare ?? self.limit))
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

    /// ``take(_:leaving:)`` for `holder` (nil: no one named): when its holdings with `bytes`
    /// would pass ``holderShare``, the take must leave ``holderShare`` more bytes free.
    public func take(_ bytes: Int, leaving reserve: Int = 0, by holder: Holder?) -> Bool {
        guard bytes > 0, let holder, holderShare < limit else { return take(bytes, leaving: reserve) }
        return held.withLock { held in
            let own = held[holder, default: 0] + bytes
            guard take(bytes, leaving: own > holderShare ? reserve + holderShare : reserve) else { return false }
            held[holder] = own
            return true
        }
    }

    /// Takes `bytes`, however many, when nothing is taken now; else takes nothing and returns
    /// false. For one holding larger than the whole budget (a control answer of a server whose
    /// budget is small), which may then go while it holds the budget alone.
    public func takeIfEmpty(_ bytes: Int, by holder: Holder? = nil) -> Bool {
        guard let holder, holderShare < limit else {
            return used.compareExchange(expected: 0, desired: bytes, ordering: .relaxed).exchanged
        }
        return held.withLock { held in
            guard used.compareExchange(expected: 0, desired: bytes, ordering: .relaxed).exchanged else { return false }
            held[holder, default: 0] += bytes
            return true
        }
    }

    /// Whether `bytes` could be taken now by `holder` leaving `reserve` (nothing is taken: a
    /// moment's answer, for refusing a declared body before reading it when it could not be held).
    public func hasRoom(for bytes: Int, leaving reserve: Int = 0, by holder: Holder? = nil) -> Bool {
        used.load(ordering: .relaxed) + bytes <= limit - reserve - (passesShare(holder, with: bytes) ? holderShare : 0)
    }

    /// Whether `holder`'s holdings with `bytes` more would pass ``holderShare`` (false for no
    /// holder, or while the rule is off): such a take must leave ``holderShare`` bytes free.
    private func passesShare(_ holder: Holder?, with bytes: Int) -> Bool {
        guard let holder, holderShare < limit else { return false }
        return held.withLock { $0[holder, default: 0] } + bytes > holderShare
    }

    /// Whether `holder`'s holding of `held` bytes was refused growing to `total` (whose largest
    /// is `largest`, as ``grow(_:toHold:largest:by:)`` was asked) only because it would pass the
    /// holder's share: the budget has room for it beside the reserve otherwise. A moment's
    /// answer, for a refusal's reason to name the share rather than the limit; the one rule of
    /// every refusal that names it (request bodies, forwarded and control answers).
    public func keptOutByShare(_ holder: Holder?, held: Int, toHold total: Int, largest: Int) -> Bool {
        let bytes = total - held
        return used.load(ordering: .relaxed) + bytes <= limit - reserve(forHolding: total, largest: largest)
            && passesShare(holder, with: bytes)
    }

    /// Gives back `bytes` taken before (by `holder`, when the take named one).
    public func giveBack(_ bytes: Int, by holder: Holder? = nil) {
        guard bytes > 0 else { return }
        if let holder, holderShare < limit {
            held.withLock { held in
                let left = held[holder, default: 0] - bytes
                held[holder] = left > 0 ? left : nil
            }
        }
        used.subtract(bytes, ordering: .relaxed)
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
    /// ``reserve(forHolding:largest:)`` is left, and for a named `holder` what
    /// ``take(_:leaving:by:)`` adds. Returns the holding's new size, or nil (nothing taken) when
    /// the budget cannot give it.
    public func grow(_ held: Int, toHold total: Int, largest: Int, by holder: Holder? = nil) -> Int? {
        guard total > held else { return held }
        let target = max(total, min(largest, max(held * 2, Self.firstHolding)))
        guard take(target - held, leaving: reserve(forHolding: target, largest: largest), by: holder) else { return nil }
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
        /// Who holds them (the tenant the answer is for), or nil.
        public let holder: Holder?
        /// Bytes taken so far.
        public private(set) var bytes = 0

        public init(of budget: ByteBudget, for holder: Holder? = nil) {
            self.budget = budget
            self.holder = holder
        }

        /// Takes what ``bytes`` lacks to hold `total`, in doublings from ``ByteBudget/firstHolding`` up to `largest`
        /// (so a holding that grows in small steps takes from the budget a few times, not at
        /// every step), leaving the budget's ``ByteBudget/reserve(forHolding:largest:)``; false
        /// (nothing more taken) when the budget cannot give it.
        public func grow(toHold total: Int, largest: Int) -> Bool {
            guard let grown = budget.grow(bytes, toHold: total, largest: largest, by: holder) else { return false }
            bytes = grown
            return true
        }

        /// Whether growing this holding to `total` (largest `largest`) was refused only for its
        /// holder's share (``ByteBudget/keptOutByShare(_:held:toHold:largest:)``).
        public func keptOutByShare(toHold total: Int, largest: Int) -> Bool {
            budget.keptOutByShare(holder, held: bytes, toHold: total, largest: largest)
        }

        /// Takes `total` bytes when this holding and the whole budget hold none
        /// (``ByteBudget/takeIfEmpty(_:)``); false, nothing taken, otherwise.
        public func takeAlone(_ total: Int) -> Bool {
            guard bytes == 0, budget.takeIfEmpty(total, by: holder) else { return false }
            bytes = total
            return true
        }

        deinit {
            budget.giveBack(bytes, by: holder)
        }
    }
}
