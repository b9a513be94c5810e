import CatbirdMatching
import CatbirdSupport
import Foundation
import Synchronization

extension MockStore {
    /// Compiles the ICU expressions of the stored mocks that no request has compiled yet, after
    /// the server listens (start-up loads stored mocks without compiling them, try9b F14), so
    /// that first requests rarely pay for a compile: the default tenant's first (every tenant's
    /// requests fall back to its mocks), then the others in id order, mocks in match order;
    /// a mock whose expressions are longer than ``MockPatternLimits/maxExpressionBytes``
    /// together (stored before that limit) after all others. Each tenant with such mocks is
    /// logged as a warning: they are kept and served, compiled here or by the first request
    /// that needs them on the matching lane (``CompiledPatternMatch/init(stored:)``), and an
    /// `update` replacing them by a pattern as long is refused.
    ///
    /// Runs on the caller's thread (a thread of its own: it takes time in the expressions'
    /// length, about a second per megabyte); a mock a request compiles meanwhile is not
    /// compiled twice. Stops between mocks once `stop` is set.
    /// - Returns: how many bytes of expressions it compiled, and how long it took.
    @discardableResult
    public func compileStoredExpressions(log: Logger, stop: borrowing Atomic<Bool>) -> (bytes: Int, took: Duration) {
        let began = ContinuousClock.now
        var tables = shardTables(after: nil, limit: Int.max)
        if let shared = table(of: .defaultTenant) { tables.insert((.defaultTenant, shared), at: 0) }
        var bytes = 0
        var oversized: [Mock] = []
        for (tenant, table) in tables {
            var long = 0
            for mock in table.ordered {
                if stop.load(ordering: .relaxed) { return (bytes, ContinuousClock.now - began) }
                do throws(PatternError) {
                    try MockPatternLimits.checkExpressions(mock.pattern.source)
                    bytes += mock.pattern.compile()
                } catch {
                    long += 1
                    oversized.append(mock)
                }
            }
            if long > 0 {
                log.warning(
                    "\(tenant.named): \(long) stored mock\(long == 1 ? " has" : "s have") regular expressions "
                        + "longer than the limit of \(MockPatternLimits.maxExpressionBytes) bytes together (stored before the limit; "
                        + "kept and served, compiled in the background or on the matching lane; an update as long is refused: "
                        + "docs/matching.md#pattern-lengths)")
            }
        }
        for mock in oversized {
            if stop.load(ordering: .relaxed) { break }
            bytes += mock.pattern.compile()
        }
        return (bytes, ContinuousClock.now - began)
    }
}
