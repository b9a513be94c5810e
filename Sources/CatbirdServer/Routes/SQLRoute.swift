import CatbirdDomain
import CatbirdHTTP
import CatbirdSQLSandbox
import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// `POST /catbird/api/sql` with `{"sql": "SELECT …", "params": [...], "maxRows": n}` →
/// `{"columns": [...], "rows": [[...]], "truncated": bool}` (docs/protocol.md#sql).
///
/// The query sees only the caller's tenant (its `X-Catbird-Parallel-Id`; the default tenant
/// `''` without one): `requests`, `mocks` and `tenants` are views of that tenant's rows, and
/// reading `main.requests` or any other table directly is refused (``TenantScopedReader``).
/// Runs after the journal is flushed, on the SQL route's own pool of read-only connections and
/// threads (``TenantSQL``; at most `perTenantLimit` queries of one tenant running or waiting,
/// else 429, and one of them running at once). One
/// statement, a read, parameters bound (never interpolated), at most `maxRows` rows (default
/// 1000, at most 10000), `Settings.sqlTimeLimit` from the query's start (a wait for a
/// connection busy with other queries is bounded by `Settings.sqlWaitLimit` apart: past it a
/// 503, ``SQLWaitError``, and the query never runs),
/// strings and blobs of at most `maxValueLength(_:)` bytes, and at most `maxResultSize` bytes
/// of answer in all (column names and values as written here plus 16 bytes each,
/// ``ReadOnlyQueryResult/size(of:)``; past it → 400 "the result exceeds 16 MiB; …"). Blobs come back as `{"base64": "…"}`; a real that JSON cannot hold
/// (an infinity, `SELECT 1e999`) as `null`, as SQLite turns NaN into NULL itself: a string
/// `"Infinity"` would pass for text in the client.
enum SQLRoute {
    static let defaultMaxRows = 1000
    static let maxMaxRows = 10_000
    /// The cap on one answer's columns and rows, in bytes as
    /// ``ReadOnlyQueryResult/size(ofColumnName:)`` and ``ReadOnlyQueryResult/size(of:)`` count
    /// them (the JSON written for them, plus 16 each): 16 MiB.
    static let maxResultSize = ReadOnlyQueryResult.defaultMaxSize

    /// The largest string, blob or row a query may build or read, in bytes: 64 MiB, or more when
    /// the settings let the server store bigger rows (a mock's body and headers come from one
    /// control request of at most `maxBodySize` bytes; a journal row adds two bodies of at most
    /// `journalBodyLimit` bytes), plus 1 MiB for the other columns.
    /// (SQLite caps the limit at 1,000,000,000 bytes.)
    static func maxValueLength(_ settings: CatbirdServer.Settings) -> Int {
        let cap = 1 << 40  // keeps the sum from overflowing; far above SQLite's cap
        let largestRow = min(settings.maxBodySize, cap) + 2 * min(settings.journalBodyLimit, cap) + (1 << 20)
        return max(TenantScopedReader.defaultMaxValueLength, largestRow)
    }

    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            // Answered later on the SQL pool (not the control pool), once the tenant has a place:
            // a third query of one tenant while two run or wait is a 429 at once; the second
            // waits for the first (one running per tenant). The time limit counts from the
            // query's start; the wait for a thread (and its connection) has its own bound, past
            // which the answer is a 503 that says so, and the query never runs (T11-F2).
            Route("POST", "/catbird/api/sql", answer: { context in
                let reservation = try dependencies.sql.reserve(for: context.tenant)
                let log = dependencies.log
                let tenant = context.tenant
                let waitLimit = dependencies.settings.sqlWaitLimit
                let waitDeadline = context.request.receivedAt.advanced(by: waitLimit)
                // The query runs whatever the client does: a half-closed client gets its answer.
                return .later(watching: .resetOnly) { responder in
                    // Whichever comes first answers: the query's start on a thread, which cancels
                    // the wait's bound (and so lets go of what it holds), or the end of its wait
                    // (the job, when its turn comes after that, does nothing).
                    let bound = CancellableTimer(after: waitDeadline - ContinuousClock.now) {
                        reservation.release()
                        let waited = SQLWaitError(
                            waitedMilliseconds: Int(waitLimit.milliseconds),
                            waited: .connection(
                                connections: dependencies.sqlPool.threadCount,
                                ownQueryRunning: dependencies.sqlPool.runningJobs(of: tenant) > 0))
                        responder.send(ErrorAnswer.response(for: waited, log: log))
                    }
                    // The pool gives the place back before the answer goes out
                    // (``HTTPWorkPool/run(_:holding:_:then:)``); nil: the wait's bound answered.
                    dependencies.sqlPool.run(tenant, holding: reservation) { () -> HTTPResponse? in
                        guard bound.cancel() else { return nil }
                        do {
                            return try run(context, dependencies, waitDeadline: waitDeadline)
                        } catch {
                            return ErrorAnswer.response(for: error, log: log)
                        }
                    } then: { answer in
                        if let answer { responder.send(answer) }
                    }
                }
            }),
        ]
    }

    /// The body's shape, for reasons that say what was expected.
    private static let shapeHint = #"{"sql": "SELECT …", "params": [null, true, 1, 2.5, "text", {"base64": "AAEC"}], "maxRows": 1000}"#

    private struct Body: Decodable {
        let sql: String
        let params: [Parameter]?
        let maxRows: Int?

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case sql, params, maxRows
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try decoder.refuseUnknownKeys(besides: CodingKeys.self)
            sql = try container.decode(String.self, forKey: .sql)
            params = try container.decodeIfPresent([Parameter].self, forKey: .params)
            maxRows = try container.decodeIfPresent(Int.self, forKey: .maxRows)
        }
    }

    /// A JSON scalar bound as an SQLite value: null, bool (0/1), integer, real or text; or
    /// `{"base64": "…"}`, bound as a BLOB, the form the answer gives a BLOB in (the Swift client's
    /// `.blob` parameter: tester finding tester44c-F5, every such call was refused).
    private struct Parameter: Decodable {
        let value: SQLiteValue

        /// A JSON number as bound: `real` as its double reads it, `exact` as its digits read (nil
        /// when `Decimal` cannot hold it). A whole number 64 bits hold is an INTEGER however it
        /// is written (`2`, `2.0`, `9223372036854775807.0`: tester finding tester59c-F1, it went
        /// through a double, which rounds the 64-bit edge to 2^63), a fraction a REAL. Refused,
        /// as a mock's limit past 64 bits is: a fraction the double lost (its magnitude leaves no
        /// bits for it: 0.5 from 2^52; tester findings tester60a-F1, tester61a-F4:
        /// 4503599627370497.5 was bound as 4503599627370498), and a whole number past 64 bits
        /// the double does not hold exactly (tester finding T17-F4: 12345678901234567891 became
        /// 1.23456789012346e+19); one it holds (`1e19`) is a REAL.
        private static func number(_ real: Double, exact: Decimal?, codingPath: [any CodingKey]) throws -> SQLiteValue {
            guard real.rounded() == real else { return .real(real) }
            guard let exact else { return Int64(exactly: real).map { .integer($0) } ?? .real(real) }
            if hasFraction(exact) {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: codingPath,
                    debugDescription: "the number \(exact) has a fraction that a 64-bit float of its size does not hold (it would be "
                        + "bound as \(real)): send it as a string to bind it as text"))
            }
            if let integer = Int64(exact.description) { return .integer(integer) }
            guard exact == Decimal(real) else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: codingPath,
                    debugDescription: "the whole number \(exact) is outside the 64-bit integer range and a 64-bit float would "
                        + "change its digits (bound as \(real)): send it as a string to bind it as text"))
            }
            return .real(real)
        }

        /// Whether `number` has a nonzero fractional part.
        private static func hasFraction(_ number: Decimal) -> Bool {
            var number = number
            var whole = Decimal()
            NSDecimalRound(&whole, &number, 0, .down)
            return whole != number
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let bool = try? container.decode(Bool.self) {
                value = .integer(bool ? 1 : 0)
            } else if let real = try? container.decode(Double.self) {
                value = try Self.number(real, exact: try? container.decode(Decimal.self), codingPath: container.codingPath)
            } else if let text = try? container.decode(String.self) {
                value = .text(text)
            } else if let blob = try? container.decode([String: String].self), blob.count == 1, let base64 = blob["base64"] {
                guard let bytes = Data(strictBase64: base64) else {
                    // The slips a mock body is told of (tester finding tester45a-F12).
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "a BLOB parameter's \"base64\" must be standard base64"
                            + ResponseMock.base64Hint(base64, rule: " (RFC 4648, with its = padding)"))
                }
                value = .blob([UInt8](bytes))
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a parameter must be null, a boolean, a number, a string or {\"base64\": \"…\"} (a BLOB)")
            }
        }
    }

    /// - Throws: ``APIError`` for a body that does not decode or a `maxRows` out of range;
    ///   `ReadOnlyQueryError` (400, or 503 when the database itself failed).
    private static func run(
        _ context: RouteContext, _ dependencies: RouteDependencies, waitDeadline: ContinuousClock.Instant
    ) throws -> HTTPResponse {
        let body = try JSONBody.decode(Body.self, from: context.request, shapeHint: shapeHint) { error in
            "\(JSONBody.readableReason(error)) (the body is \(shapeHint))"
        }
        // SQLite reads the text as a C string, to its first NUL: what follows would be ignored,
        // by the one-statement check too (T12-F4: `select 1\u0000; delete from requests` ran as
        // `select 1`). Refused as `pattern.url` and header values with a NUL are.
        guard !body.sql.utf8.contains(0) else {
            throw APIError.badRequest(
                "'sql' holds a NUL character (\\u0000), where SQLite stops reading the statement, so what follows would be "
                    + "ignored: remove it")
        }
        let maxRows = body.maxRows ?? defaultMaxRows
        guard (1...maxMaxRows).contains(maxRows) else {
            throw APIError.badRequest("'maxRows' must be from 1 to \(maxMaxRows)")
        }
        let parameters = (body.params ?? []).map(\.value)
        let rows = try dependencies.sql.query(
            body.sql, tenant: context.tenant, parameters: parameters, maxRows: maxRows,
            timeLimit: dependencies.settings.sqlTimeLimit, waitDeadline: waitDeadline, maxResultSize: maxResultSize)
        return JSONBody.response(SQLAnswer(rows))
    }
}

/// The JSON answer of the SQL route.
struct SQLAnswer: Encodable {
    let columns: [String]
    let rows: [[Cell]]
    let truncated: Bool

    init(_ result: ReadOnlyQueryResult) {
        columns = result.columns
        rows = result.rows.map { $0.map(Cell.init) }
        truncated = result.truncated
    }

    struct Cell: Encodable {
        let value: SQLiteValue

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch value {
            case .null: try container.encodeNil()
            case let .integer(integer): try container.encode(integer)
            case let .real(real) where real.isFinite: try container.encode(real)
            case .real: try container.encodeNil()
            case let .text(text): try container.encode(text)
            case let .blob(bytes): try container.encode(["base64": Data(bytes).base64EncodedString()])
            }
        }
    }
}
