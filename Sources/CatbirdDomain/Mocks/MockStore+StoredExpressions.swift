import CatbirdMatching
import CatbirdSupport
import CatbirdWire
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
    /// A stored mock with an expression ICU does not compile (a row edited with `sqlite3`; every
    /// `update` compiled its own) never matches: each is logged as a warning naming its row and
    /// column (the first ``namedUncompilable``, then how many more; tester finding
    /// tester21b-F7), as start-up refuses a row failing the other checks of an `update`,
    /// which it can make without compiling (README.md#storage-faults).
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
        var uncompilable: [Mock] = []
        defer { Self.warn(uncompilable: uncompilable, log: log) }
        for (tenant, table) in tables {
            var long = 0
            for mock in table.ordered {
                if stop.load(ordering: .relaxed) { return (bytes, ContinuousClock.now - began) }
                do throws(PatternError) {
                    try MockPatternLimits.checkExpressions(mock.pattern.source)
                    bytes += mock.pattern.compile()
                    if !mock.pattern.isCompiled { uncompilable.append(mock) }
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
            if !mock.pattern.isCompiled { uncompilable.append(mock) }
        }
        return (bytes, ContinuousClock.now - began)
    }

    /// How many stored mocks with an expression that does not compile are named one by one.
    static let namedUncompilable = 10

    /// Logs the first ``namedUncompilable`` of `mocks` (stored mocks whose expressions did not
    /// compile, ``compileStoredExpressions(log:stop:)``) one by one, then how many more.
    private static func warn(uncompilable mocks: [Mock], log: Logger) {
        for mock in mocks.prefix(namedUncompilable) {
            let (column, reason) = uncompilableExpression(mock.pattern.source)
            let row = UnloadableMockRow(
                id: mock.id, tenant: mock.tenant.rawValue, column: column,
                problem: "is refused as an update would refuse it: \(reason); kept, the mock never matches")
            log.warning("\(row)")
        }
        if mocks.count > namedUncompilable {
            log.warning(
                "\(mocks.count - namedUncompilable) more stored mocks have a regular expression that does not compile and never "
                    + "match; fix or delete their rows (docs/schema.md#editing-mocks-rows)")
        }
    }

    /// The column and reason of the first expression of `source` that does not compile, as an
    /// `update` compiles them (url, headers by name, body).
    private static func uncompilableExpression(_ source: RequestPattern) -> (column: String, reason: String) {
        do throws(PatternError) {
            _ = try CompiledPatternMatch(source.url)
        } catch {
            return ("url_value", error.reason)
        }
        for (_, match) in source.headers.sorted(by: { $0.key < $1.key }) {
            do throws(PatternError) {
                _ = try CompiledPatternMatch(match)
            } catch {
                return ("header_patterns", error.reason)
            }
        }
        if let body = source.body {
            do throws(PatternError) {
                _ = try CompiledBodyPattern(body)
            } catch {
                return ("body_pattern", error.reason)
            }
        }
        return ("url_value", "a regular expression does not compile")  // each compiled once: not reached
    }
}
