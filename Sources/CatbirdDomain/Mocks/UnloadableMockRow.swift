import CatbirdSupport

/// The part of a mock a refusal of `update` is about, and the `mocks` column that holds it
/// (docs/schema.md#tables): how a refusal of a stored row names its column.
public enum MockField: Sendable {
    case method, url, headers, body, status, responseHeaders, responseBody, delay

    /// The `mocks` column: `method`, `url_value`, `header_patterns`, `body_pattern`, `status`,
    /// `response_headers`, `response_body`, `delay_seconds`.
    public var column: String {
        switch self {
        case .method: "method"
        case .url: "url_value"
        case .headers: "header_patterns"
        case .body: "body_pattern"
        case .status: "status"
        case .responseHeaders: "response_headers"
        case .responseBody: "response_body"
        case .delay: "delay_seconds"
        }
    }
}

/// Why `update` refuses a mock: the field, the 400's reason, and the error the route answers
/// with. Thrown by the check ``MockStore/init(database:limits:check:)`` runs on every stored row.
public struct MockRefusal: Error {
    public let field: MockField
    /// One sentence naming the wire field (`'response.status' must be between 200 and 599, not 999`).
    public let reason: String
    /// The error the control route answers with (a 400).
    public let error: any Error

    public init(_ field: MockField, reason: String, error: any Error) {
        self.field = field
        self.reason = reason
        self.error = error
    }
}

/// A row of the `mocks` table the server cannot load as it stands: a column that does not hold
/// what docs/schema.md#tables says (JSON that is not JSON or not of its shape, a number as
/// text), or a mock `update` refuses (``MockRefusal``). Such a row was not written by the
/// server (rows are written only by `update`): it was edited, with `sqlite3` for instance.
/// Start-up refuses the file (exit 3, README.md#storage-faults; tester finding tester21b-F7:
/// a bare `DecodingError` and exit 1, or a status of 999 served, or a mock that never matched).
public struct UnloadableMockRow: Error, CustomStringConvertible, Sendable {
    /// The row's `id`.
    public let id: Int64
    /// The row's `tenant` (`""`: the default tenant).
    public let tenant: String
    /// The column at fault.
    public let column: String
    /// What is wrong with it, after the column's name: `is not valid JSON (…)`.
    public let problem: String

    /// `mocks row 1 (tenant ""): header_patterns is not valid JSON (…); fix or delete the row (docs/schema.md#editing-mocks-rows)`.
    public var description: String {
        "mocks row \(id) (tenant \(JSONText.shortString(tenant))): \(column) \(problem); fix or delete the row (docs/schema.md#editing-mocks-rows)"
    }
}
