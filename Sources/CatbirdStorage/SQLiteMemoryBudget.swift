import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A per-thread bound on the heap memory SQLite allocates, for running statements a user wrote
/// (`POST /catbird/api/sql`, docs/protocol.md#sql) without letting one of them take the host's
/// memory.
///
/// Why not SQLite's own heap limits: `sqlite3_hard_heap_limit64` and
/// `sqlite3_soft_heap_limit64` (<https://www.sqlite.org/c3ref/hard_heap_limit64.html>) are
/// process-wide (a user's query at the limit would make the journal writer's next insert fail
/// with `SQLITE_NOMEM`) and need SQLite's memory statistics, which take a global mutex around
/// every allocation and are off here (``Database``'s process settings). The length limit
/// (`SQLITE_LIMIT_LENGTH`) bounds one value, not how many a statement holds at once: ten
/// columns of `hex(zeroblob(30000000))` passed a 64 MiB limit each and took 2 GB (three
/// tenants at once: 5.8 GB).
///
/// How: SQLite lets the application supply its allocator (`SQLITE_CONFIG_MALLOC`,
/// <https://www.sqlite.org/c3ref/mem_methods.html>). ``install()`` wraps the default one (read
/// with `SQLITE_CONFIG_GETMALLOC`), passing every call on to it. While a thread runs
/// ``withBudget(_:_:)``, the blocks SQLite allocates and frees on that thread are counted, and
/// an allocation that would take the count past the budget returns NULL: SQLite fails the
/// statement with `SQLITE_NOMEM` and the connection stays usable (SQLite's recovery from a
/// failed allocation is part of its own test suite). Other threads pay one relaxed atomic load
/// per call while some budget is active, and nothing else.
///
/// A budget may also end at a deadline: past it, every allocation of ``largeBlock`` bytes or
/// more on that thread is refused, so a statement that builds values stops at the next one it
/// builds. SQLite consults its interrupt only at loop steps, so one row's straight-line
/// expressions ran on past the interrupt: a `SELECT` of 200 columns of
/// `length(replace(printf('%.*c',10000000,'a'),'a','b'))` answered "interrupted after its time
/// limit of 2000 ms" after 12 s, and three such queries held every SQL connection for 37 s and a
/// stop for 17 s (tester finding tester52b-F1).
public enum SQLiteMemoryBudget {
    /// The budget of one ``withBudget(_:_:)`` call; touched by its own thread only.
    private struct Budget {
        let limit: Int
        let deadline: ContinuousClock.Instant?
        var used = 0
        var peak = 0
        var refused = false
        var refusedAtDeadline = false
        /// Inside ``SQLiteMemoryBudget/compiling(_:)``: past the deadline every block is refused.
        var compiling = false
        var refusedWhileCompiling = false

        /// Whether an allocation of `bytes` is refused for the deadline (and says so).
        mutating func pastDeadline(_ bytes: Int) -> Bool {
            guard compiling || bytes >= SQLiteMemoryBudget.largeBlock, let deadline, ContinuousClock.now >= deadline else { return false }
            refusedAtDeadline = true
            return true
        }

        /// Notes a refusal for the limit.
        mutating func refuse() {
            refused = true
            if compiling { refusedWhileCompiling = true }
        }

        /// Counts `bytes` (negative for a free; never below zero, so a free of a block
        /// allocated before the budget began gives no extra room).
        mutating func charge(_ bytes: Int) {
            used = max(0, used + bytes)
            peak = max(peak, used)
        }
    }

    /// What one ``withBudget(_:_:)`` call used.
    public struct Usage: Sendable, Equatable {
        /// The most bytes SQLite held at once for this thread during the call (blocks it
        /// allocated before the call and freed during it are not subtracted).
        public var peak: Int
        /// Whether an allocation was refused because it would have passed the budget.
        public var refused: Bool
        /// Whether an allocation was refused because the budget's deadline had passed.
        public var refusedAtDeadline = false
        /// Whether an allocation was refused for the limit while a statement was compiled
        /// (``compiling(_:)``): the statement itself, not the values it holds, is what is large.
        public var refusedWhileCompiling = false
    }

    /// The smallest allocation refused past a budget's deadline: 64 KiB. Smaller blocks (a
    /// statement's own bookkeeping, a page of the cache, a short value) are still granted, so
    /// SQLite's way out of the statement never meets a refusal it did not ask for, and the work
    /// one row can do with them alone is small.
    public static let largeBlock = 64 << 10

    /// SQLite's default allocator, to which every call is passed. Written once by ``install()``
    /// before SQLite initialises (so before any call of ours can read it), never again; hence
    /// the unsynchronised reads from any thread.
    nonisolated(unsafe) private static var base = sqlite3_mem_methods()
    /// The thread-specific slot holding the running thread's `Budget` pointer. Created once by
    /// ``install()`` before SQLite initialises, read-only afterwards.
    nonisolated(unsafe) private static var key = pthread_key_t()
    /// Whether ``install()`` put the counting allocator in place. Written once under the
    /// process-settings initialiser, before any budget can be asked for.
    nonisolated(unsafe) public private(set) static var isInstalled = false
    /// Budgets running now, on any thread: while 0, every call passes straight on.
    private static let active = Atomic<Int>(0)

    /// Puts the counting allocator in place. Must run before SQLite initialises (before the
    /// first connection opens); afterwards SQLite refuses it and this returns false, and
    /// budgets count nothing.
    /// - Returns: whether the allocator is in place.
    @discardableResult
    static func install() -> Bool {
        var methods = sqlite3_mem_methods()
        guard catbird_sqlite3_get_allocator(&methods) == SQLITE_OK, methods.xMalloc != nil,
              methods.xFree != nil, methods.xRealloc != nil, methods.xSize != nil, methods.xRoundup != nil,
              pthread_key_create(&key, nil) == 0
        else { return false }
        base = methods
        methods.xMalloc = { size in SQLiteMemoryBudget.allocate(size) }
        methods.xFree = { pointer in SQLiteMemoryBudget.free(pointer) }
        methods.xRealloc = { pointer, size in SQLiteMemoryBudget.reallocate(pointer, size) }
        isInstalled = catbird_sqlite3_set_allocator(&methods) == SQLITE_OK
        return isInstalled
    }

    /// Runs `body` with SQLite's allocations on this thread bounded to `limit` bytes (≥ 0) in
    /// all: past it they fail and SQLite answers `SQLITE_NOMEM` for the statement that asked.
    /// Past `deadline` (nil: none) so do those of ``largeBlock`` bytes or more
    /// (``Usage/refusedAtDeadline``). Not nested: `body` must not call it again.
    /// - Returns: what `body` returns, and what it used (zeros when the allocator is not
    ///   installed, and nothing was bounded).
    /// - Throws: what `body` throws.
    public static func withBudget<T, E: Error>(
        _ limit: Int, deadline: ContinuousClock.Instant? = nil, _ body: () throws(E) -> T
    ) throws(E) -> (T, Usage) {
        precondition(limit >= 0, "a memory budget must not be negative, got \(limit)")
        guard isInstalled else { return (try body(), Usage(peak: 0, refused: false)) }
        precondition(pthread_getspecific(key) == nil, "SQLiteMemoryBudget.withBudget is not reentrant")
        let budget = UnsafeMutablePointer<Budget>.allocate(capacity: 1)
        budget.initialize(to: Budget(limit: limit, deadline: deadline))
        pthread_setspecific(key, budget)
        active.add(1, ordering: .relaxed)
        defer {
            active.subtract(1, ordering: .relaxed)
            pthread_setspecific(key, nil)
            budget.deinitialize(count: 1)
            budget.deallocate()
        }
        let result = try body()
        let spent = budget.pointee
        return (
            result,
            Usage(peak: spent.peak, refused: spent.refused, refusedAtDeadline: spent.refusedAtDeadline, refusedWhileCompiling: spent.refusedWhileCompiling)
        )
    }

    /// Runs `body`, which compiles a statement (`sqlite3_prepare`), so that past the running
    /// budget's deadline every allocation is refused, not only those of ``largeBlock`` bytes or
    /// more: SQLite's interrupt reaches the compiler only between tokens of the SQL text, and
    /// its many small blocks (expression trees) are what a costly statement takes. A statement
    /// whose CTEs each use the one before twice is copied twice per level: 20 levels, about
    /// 2 KB of SQL, compiled for 10 s and took 3.3 GB (tester finding tester56c-F3). SQLite
    /// recovers from a failed allocation while compiling (`SQLITE_NOMEM`, the statement not
    /// made). Without a budget on this thread, just runs `body`.
    public static func compiling<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let budget = current else { return try body() }
        let outer = budget.pointee.compiling
        budget.pointee.compiling = true
        defer { budget.pointee.compiling = outer }
        return try body()
    }

    /// This thread's budget, if it runs one.
    private static var current: UnsafeMutablePointer<Budget>? {
        guard active.load(ordering: .relaxed) != 0, let slot = pthread_getspecific(key) else { return nil }
        return slot.assumingMemoryBound(to: Budget.self)
    }

    private static func allocate(_ size: Int32) -> UnsafeMutableRawPointer? {
        guard let budget = current else { return base.xMalloc!(size) }
        if budget.pointee.pastDeadline(Int(size)) { return nil }
        guard budget.pointee.used + Int(base.xRoundup!(size)) <= budget.pointee.limit else {
            budget.pointee.refuse()
            return nil
        }
        let pointer = base.xMalloc!(size)
        if let pointer { budget.pointee.charge(Int(base.xSize!(pointer))) }
        return pointer
    }

    private static func free(_ pointer: UnsafeMutableRawPointer?) {
        if let budget = current, let pointer { budget.pointee.charge(-Int(base.xSize!(pointer))) }
        base.xFree!(pointer)
    }

    private static func reallocate(_ pointer: UnsafeMutableRawPointer?, _ size: Int32) -> UnsafeMutableRawPointer? {
        guard let budget = current else { return base.xRealloc!(pointer, size) }
        let old = pointer.map { Int(base.xSize!($0)) } ?? 0
        if Int(size) > old, budget.pointee.pastDeadline(Int(size)) { return nil }
        guard budget.pointee.used - old + Int(base.xRoundup!(size)) <= budget.pointee.limit else {
            budget.pointee.refuse()
            return nil
        }
        let moved = base.xRealloc!(pointer, size)
        if let moved { budget.pointee.charge(Int(base.xSize!(moved)) - old) }
        return moved
    }
}
