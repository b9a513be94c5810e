import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
import CatbirdWire
import Dispatch
import Foundation

/// The SQL function `catbird_request_matches(pattern, deadline, url, request_headers, request_body)`:
/// 1 when a journal row matches the request pattern by the Swift matcher (the mocks' rules,
/// docs/matching.md#request-matching), else 0, the method aside: every statement that calls it
/// compares the method itself (``JournalPatternSQL``'s `method = ?`, byte for byte). Journal
/// queries call it on every row ``JournalPatternSQL``'s conditions leave (all but an `equal`
/// url and the method alone).
///
/// `pattern` is the whole ``RequestPattern`` as its wire JSON, bound as a parameter: compiled
/// once per statement (SQLite's auxiliary data) and matched with
/// ``CatbirdMatching/CompiledRequestPattern``'s public entry point for bytes, so any part a
/// pattern gains later is matched here with no change to the SQL. The row's columns are read
/// as SQLite holds them, with no copy: a `String` is made only where the bytes cannot decide
/// (``CatbirdMatching/CompiledPatternMatch/evaluate(utf8:until:)``), and a header's first value
/// is found in `request_headers` by ``JournalHeaderScan``, decoding the JSON
/// (``JournalHeaders``) only for texts it leaves undecided. `request_headers` is read only when
/// the pattern has header patterns; `request_body` (the stored body) only for a pattern with a
/// body pattern, after everything else matched (``JournalPatternSQL`` passes NULL for the
/// columns a pattern does not read).
///
/// A body sent with a `Content-Encoding` (its row's `request_headers` say so) is decoded before
/// a body pattern reads it, by the server's ``JournalBodyDecoder``, so `count`, `find` and `wait`
/// see what mock matching saw (docs/matching.md#compressed-request-bodies; tester finding
/// tester30a-F8: a gzipped upload its mock matched counted 0 by the same pattern).
///
/// `deadline` is the `DispatchTime` uptime in nanoseconds at which a regular expression ICU is
/// still evaluating is stopped, which fails the statement (0: none). SQLite's progress
/// handler stops the statement between rows (``CatbirdStorage/Database/withDeadline(_:_:)``);
/// this stops one slow row. A pattern that does not decode or compile fails the statement.
enum RequestMatchFunction {
    /// The function's SQL name.
    static let name = "catbird_request_matches"

    /// Registers the function on `database` (a journal read connection).
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    static func register(on database: Database, decodingBodies decoder: JournalBodyDecoder?) throws(SQLiteError) {
        try database.createFunction(name, argumentCount: 5, deterministic: false) { call throws(SQLFunctionError) in
            guard let compiled = call.auxiliary(for: 0, make: { Compiled(json: call.text(0), deadline: call.integer(1), decoder: decoder) }) else {
                throw SQLFunctionError("\(name): the pattern argument is not a valid request pattern")
            }
            switch compiled.evaluate(call) {
            case .matched: return .integer(1)
            case .notMatched: return .integer(0)
            case .outOfTime: throw SQLFunctionError("\(name): past the time limit")
            }
        }
    }

    /// `deadline` as the function's second argument.
    static func argument(_ deadline: ContinuousClock.Instant) -> SQLiteValue {
        let remaining = deadline - ContinuousClock.now
        return .integer(Int64(clamping: DispatchTime.now().uptimeNanoseconds) + max(1, remaining.nanoseconds))
    }

    /// `pattern` as the function's first argument.
    static func argument(_ pattern: RequestPattern) -> SQLiteValue {
        .text(String(decoding: (try? JSONEncoder().encode(pattern)) ?? Data(), as: UTF8.self))
    }

    /// A compiled pattern and its deadline, kept by SQLite across the rows of one statement.
    private final class Compiled {
        let pattern: CompiledRequestPattern
        /// When a regular expression still running is stopped.
        let deadline: ContinuousClock.Instant
        /// Whether every header name of the pattern is printable ASCII (``JournalHeaderScan``
        /// decides those; other names are looked up in the decoded JSON).
        let scansHeaders: Bool
        /// Undoes a body's `Content-Encoding` before the body pattern reads it.
        let decoder: JournalBodyDecoder?

        init?(json: String?, deadline uptime: Int64, decoder: JournalBodyDecoder?) {
            guard let json, let source = try? JSONDecoder().decode(RequestPattern.self, from: Data(json.utf8)),
                  let pattern = try? CompiledRequestPattern(source)
            else { return nil }
            self.pattern = pattern
            let remaining = uptime > 0
                ? Duration.nanoseconds(uptime - Int64(clamping: DispatchTime.now().uptimeNanoseconds)) : .seconds(3600)
            deadline = ContinuousClock.now.advanced(by: remaining)
            scansHeaders = source.headers.keys.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E } }
            self.decoder = decoder
        }

        /// The row's verdict; arguments 2… are the row's columns.
        func evaluate(_ call: SQLFunctionCall) -> MatchOutcome {
            var decoded: JournalHeaders?
            return Self.bytes(call, 2) { target in
                pattern.evaluate(
                    method: nil, target: target,
                    headerValue: { name, match in
                        self.headerValue(call, name, decoded: &decoded, match)
                    },
                    body: { self.body(call, decoded: &decoded) }, until: deadline)
            }
        }

        /// The row's request body as body patterns see it: decoded from the `Content-Encoding`
        /// its `request_headers` give, when the decoder decodes it; else as journaled.
        private func body(_ call: SQLFunctionCall, decoded: inout JournalHeaders?) -> [UInt8] {
            let stored = call.blob(4) ?? []
            guard let decoder, !stored.isEmpty else { return stored }
            var first: String?
            _ = headerValue(call, "Content-Encoding", decoded: &decoded) { value in
                first = String(decoding: value, as: UTF8.self)
                return .matched
            }
            guard let first else { return stored }
            // Every line of it, one list, as mock matching read it (tester finding tester35a-F2);
            // the stored JSON holds a repeated name as an array.
            if decoded == nil { decoded = JournalHeaders(json: call.text(3)) }
            let lines = decoded?.values(of: "Content-Encoding") ?? []
            return decoder(stored, lines.count > 1 ? lines.joined(separator: ", ") : first) ?? stored
        }

        /// `match` applied to the first value of header `name` of the row, nil when it has none.
        private func headerValue(
            _ call: SQLFunctionCall, _ name: String, decoded: inout JournalHeaders?,
            _ match: (UnsafeBufferPointer<UInt8>) -> MatchOutcome
        ) -> MatchOutcome? {
            if scansHeaders {
                var name = name
                let scanned = name.withUTF8 { name in
                    call.withTextBytes(3) { json -> Scanned in
                        switch JournalHeaderScan.firstValue(of: name, in: json) {
                        case let .value(range): .decided(match(UnsafeBufferPointer(rebasing: json[range])))
                        case .absent: .decided(nil)
                        case .undecided: .undecided
                        }
                    } ?? .decided(nil)
                }
                if case let .decided(outcome) = scanned { return outcome }
            }
            if decoded == nil { decoded = JournalHeaders(json: call.text(3)) }
            guard var value = decoded?.firstValue(of: name) else { return nil }
            return value.withUTF8(match)
        }

        /// What scanning the stored header JSON said.
        private enum Scanned {
            /// The outcome on the first value, nil when the header is not there.
            case decided(MatchOutcome?)
            case undecided
        }

        /// `body` on argument `index`'s text bytes (NULL: no bytes).
        private static func bytes<R>(_ call: SQLFunctionCall, _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            call.withTextBytes(index, body) ?? body(UnsafeBufferPointer(start: nil, count: 0))
        }
    }
}

/// Undoes a journaled request body's `Content-Encoding` for the journal's body patterns
/// (``Journal/registerFunctions(on:decodingBodies:)``): `body` the stored bytes, `contentEncoding`
/// the request's first `Content-Encoding` value as sent; returns the decoded bytes, or nil when
/// the body is matched as journaled (no coding decoded, data not of its coding, or more than the
/// decoding limit once decoded), as mock matching treats it (docs/matching.md#compressed-request-bodies).
/// Called on a read connection's thread, once per row a body pattern reads.
public typealias JournalBodyDecoder = @Sendable (_ body: [UInt8], _ contentEncoding: String) -> [UInt8]?
