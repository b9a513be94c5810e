import CatbirdDomain
import CatbirdHTTP
import CatbirdStorage
import Foundation

/// `POST /catbird/api/sql` with `{"sql": "SELECT …", "params": [...], "maxRows": n}` →
/// `{"columns": [...], "rows": [[...]], "truncated": bool}` (spec part 3).
///
/// Runs on the read-only connection after the journal is flushed. One statement, a read,
/// parameters bound (never interpolated), at most `maxRows` rows (default 1000, at most
/// 10000) and `Settings.sqlTimeLimit`. Blobs come back as `{"base64": "…"}`; reals that JSON
/// cannot hold as numbers as the strings `"Infinity"` and `"-Infinity"`.
enum SQLRoute {
    static let defaultMaxRows = 1000
    static let maxMaxRows = 10_000

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
        services.journal.writer.flush()
        let parameters = (body.params ?? []).map(\.value)
        let limit = services.settings.sqlTimeLimit
        let result: Result<ReadOnlyQueryResult, ReadOnlyQueryError>
        do {
            result = try services.reader.use { db in
                Result { () throws(ReadOnlyQueryError) in
                    try db.readOnlyQuery(body.sql, parameters: parameters, maxRows: maxRows, timeLimit: limit)
                }
            }
        } catch {
            throw APIError(status: 500, reason: "storage failure (see the server log)")
        }
        switch result {
        case let .success(rows):
            return JSONBody.response(SQLAnswer(rows))
        case let .failure(error):
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
