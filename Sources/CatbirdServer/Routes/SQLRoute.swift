import CatbirdDomain
import CatbirdHTTP
import CatbirdSQLSandbox
import CatbirdStorage
import Foundation

/// `POST /catbird/api/sql` with `{"sql": "SELECT …", "params": [...], "maxRows": n}` →
/// `{"columns": [...], "rows": [[...]], "truncated": bool}` (docs/protocol.md#sql).
///
/// The query sees only the caller's tenant (its `X-Catbird-Parallel-Id`; the default tenant
/// `''` without one): `requests`, `mocks` and `tenants` are views of that tenant's rows, and
/// reading `main.requests` or any other table directly is refused (``TenantScopedReader``).
/// Runs after the journal is flushed, on the SQL route's own read-only connections. One
/// statement, a read, parameters bound (never interpolated), at most `maxRows` rows (default
/// 1000, at most 10000), `Settings.sqlTimeLimit` (waiting for another SQL query included),
/// strings and blobs of at most `maxValueLength(_:)` bytes, and at most `maxResultSize` bytes
/// of result in all (texts' and blobs' bytes plus 16 per value; past it → 400 "the result
/// exceeds 16 MiB; …"). Blobs come back as `{"base64": "…"}`; reals that JSON cannot hold as
/// numbers as the strings `"Infinity"` and `"-Infinity"`.
enum SQLRoute {
    static let defaultMaxRows = 1000
    static let maxMaxRows = 10_000
    /// The cap on one answer's rows, in bytes as ``ReadOnlyQueryResult/size(of:)`` counts
    /// them: 16 MiB (about 21 MiB of JSON once blobs are base64-encoded).
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

    static func routes(_ services: Services) -> [Route] {
        [
            Route("POST", "/catbird/api/sql") { context throws(APIError) in
                try run(context, services)
            },
        ]
    }

    private struct Body: Decodable {
        let sql: String
        let params: [Parameter]?
        let maxRows: Int?
    }

    /// A JSON scalar bound as an SQLite value: null, bool (0/1), integer, real or text.
    private struct Parameter: Decodable {
        let value: SQLiteValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let bool = try? container.decode(Bool.self) {
                value = .integer(bool ? 1 : 0)
            } else if let integer = try? container.decode(Int64.self) {
                value = .integer(integer)
            } else if let real = try? container.decode(Double.self) {
                value = .real(real)
            } else if let text = try? container.decode(String.self) {
                value = .text(text)
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a parameter must be null, a boolean, a number or a string")
            }
        }
    }

    private static func run(_ context: RouteContext, _ services: Services) throws(APIError) -> HTTPResponse {
        let body = try JSONBody.decode(Body.self, from: context.request) { error in
            "body must be {\"sql\": string, \"params\": [scalars], \"maxRows\": number}: \(error)"
        }
        let maxRows = body.maxRows ?? defaultMaxRows
        guard (1...maxMaxRows).contains(maxRows) else {
            throw .badRequest("'maxRows' must be from 1 to \(maxMaxRows)")
        }
        let parameters = (body.params ?? []).map(\.value)
        do {
            let rows = try services.sql.query(
                body.sql, tenant: context.tenant, parameters: parameters, maxRows: maxRows,
                timeLimit: services.settings.sqlTimeLimit, maxResultSize: maxResultSize)
            return JSONBody.response(SQLAnswer(rows))
        } catch {
            throw .badRequest(error.description)
        }
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
            case let .real(real): try container.encode(real > 0 ? "Infinity" : real < 0 ? "-Infinity" : "NaN")
            case let .text(text): try container.encode(text)
            case let .blob(bytes): try container.encode(["base64": Data(bytes).base64EncodedString()])
            }
        }
    }
}
