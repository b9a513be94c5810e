import CatbirdMatching
import CatbirdStorage
import CatbirdWire
import Dispatch
import Foundation

/// The SQL function `catbird_request_matches(pattern, deadline, method, url, request_headers, request_body)`:
/// 1 when a journal row matches the request pattern by the Swift matcher (the mocks' rules,
/// docs/matching.md#request-matching), else 0. It is what journal queries fall back to for
/// what ``JournalPatternSQL`` cannot say in SQL exactly (a regexp outside the GLOB subset, a
/// subject with non-ASCII characters, a header name SQL cannot look up).
///
/// `pattern` is the whole ``RequestPattern`` as its wire JSON, bound as a parameter: compiled
/// once per statement (SQLite's auxiliary data) and matched with
/// ``CatbirdMatching/CompiledRequestPattern``'s public entry point, so any part a pattern
/// gains later is matched here with no change to the SQL. `request_headers` is the stored JSON
/// object (read only when the pattern has header patterns); `request_body` is the stored body
/// for a pattern with parts beyond the method, url and headers (``JournalPatternSQL`` passes
/// NULL otherwise), for a matcher entry point that reads the body.
/// `deadline` is the `DispatchTime` uptime in nanoseconds past which a call fails the statement
/// before matching (SQLite's progress handler runs between virtual-machine instructions, too
/// rarely to stop a statement whose every row is a slow regular expression); 0 for none.
/// A pattern that does not decode or compile fails the statement.
enum RequestMatchFunction {
    /// The function's SQL name.
    static let name = "catbird_request_matches"

    /// The SQL function `catbird_printable(text)`: 1 when every byte of the text is printable
    /// ASCII (U+0020…U+007E), where ``GlobTranslation`` is exact; 0 otherwise or for NULL.
    /// (The same test as `text NOT GLOB '*[^ -~]*'`, several times faster.)
    static let printableName = "catbird_printable"

    /// Registers both functions on `database` (a journal read connection).
    /// - Throws: `SQLiteError` when SQLite refuses a registration.
    static func register(on database: Database) throws(SQLiteError) {
        try database.createFunction(printableName, argumentCount: 1) { call throws(SQLFunctionError) in
            let printable = call.withTextBytes(0) { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E } } ?? false
            return .integer(printable ? 1 : 0)
        }
        try database.createFunction(name, argumentCount: 6, deterministic: false) { call throws(SQLFunctionError) in
            let deadline = UInt64(clamping: call.integer(1))
            if deadline > 0, DispatchTime.now().uptimeNanoseconds >= deadline {
                throw SQLFunctionError("\(name): past the time limit")
            }
            guard let compiled = call.auxiliary(for: 0, make: { Compiled(json: call.text(0)) }) else {
                throw SQLFunctionError("\(name): the pattern argument is not a valid request pattern")
            }
            let pattern = compiled.pattern
            let headers = pattern.source.headers.isEmpty ? JournalHeaders() : JournalHeaders(json: call.text(4))
            // The matcher's own budget stops a regular expression still running at the deadline
            // (docs/matching.md#evaluation-budget).
            let until = deadline > 0
                ? ContinuousClock.now.advanced(by: .nanoseconds(Int64(clamping: deadline) - Int64(clamping: DispatchTime.now().uptimeNanoseconds)))
                : ContinuousClock.now.advanced(by: .seconds(3600))
            switch pattern.evaluate(
                method: call.text(2) ?? "", target: call.text(3) ?? "", headerValue: headers.firstValue(of:),
                body: pattern.hasBodyPattern ? call.blob(5) ?? [] : [], until: until)
            {
            case .matched: return .integer(1)
            case .notMatched: return .integer(0)
            case .outOfTime: throw SQLFunctionError("\(name): past the time limit")
            }
        }
    }

    /// `deadline` as the function's second argument.
    static func argument(_ deadline: ContinuousClock.Instant) -> SQLiteValue {
        let remaining = deadline - ContinuousClock.now
        let nanoseconds = max(0, remaining.components.seconds) * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
        return .integer(Int64(clamping: DispatchTime.now().uptimeNanoseconds) + max(1, nanoseconds))
    }

    /// `pattern` as the function's first argument.
    static func argument(_ pattern: RequestPattern) -> SQLiteValue {
        .text(String(decoding: (try? JSONEncoder().encode(pattern)) ?? Data(), as: UTF8.self))
    }

    /// A compiled pattern kept by SQLite across the rows of one statement.
    private final class Compiled {
        let pattern: CompiledRequestPattern

        init?(json: String?) {
            guard let json, let source = try? JSONDecoder().decode(RequestPattern.self, from: Data(json.utf8)),
                  let pattern = try? CompiledRequestPattern(source)
            else { return nil }
            self.pattern = pattern
        }
    }
}
