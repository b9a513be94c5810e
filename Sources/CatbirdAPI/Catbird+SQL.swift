import Foundation

extension Catbird {
    /// Runs one read-only SQL statement over the caller's tenant's rows (`POST /catbird/api/sql`).
    ///
    /// The tables `requests`, `mocks` and `tenants` show the caller's tenant only (see the
    /// server's README for their columns). `?` placeholders are bound to `params`, never
    /// interpolated.
    ///
    /// ```swift
    /// let result = try catbird.sql("SELECT method, status FROM requests WHERE url = ?", params: ["/api/feed"])
    /// ```
    ///
    /// - Parameters:
    ///   - query: one SELECT (or other read-only) statement.
    ///   - params: values for the `?` placeholders, in order: null, integers, reals, texts or
    ///     blobs (``CatbirdSQLValue/blob(_:)``, sent as `{"base64": …}`). A REAL with no
    ///     fraction in a result reads as an integer (`SELECT 2.0` gives `.integer(2)`), so
    ///     compare such columns with integers (see ``CatbirdSQLValue``).
    ///   - maxRows: the most rows to return, 1–10000; nil for the server's default (1000).
    ///     ``CatbirdSQLResult/truncated`` tells whether rows were left out.
    /// - Returns: the columns and rows.
    /// - Throws: ``CatbirdError`` with status 400 when the statement is invalid, writes, reads
    ///   another tenant's tables, or exceeds the server's limits (2 seconds, 16 MiB);
    ///   `EncodingError` for a non-finite `.real` parameter; `URLError` on a transport failure;
    ///   ``CatbirdError`` for an unreadable answer.
    @_disfavoredOverload
    public func sql(_ query: String, params: [CatbirdSQLValue] = [], maxRows: Int? = nil) throws -> CatbirdSQLResult {
        try perform(APICall.sql(query, params: params, maxRows: maxRows))
    }

    /// Runs one read-only SQL statement over the caller's tenant's rows (`POST /catbird/api/sql`);
    /// see the synchronous form for the parameters.
    ///
    /// - Returns: the columns and rows.
    /// - Throws: as the synchronous form; `URLError(.cancelled)` when the task is cancelled.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func sql(_ query: String, params: [CatbirdSQLValue] = [], maxRows: Int? = nil) async throws -> CatbirdSQLResult {
        try await perform(APICall.sql(query, params: params, maxRows: maxRows))
    }
}

extension APICall where Output == CatbirdSQLResult {
    /// `POST /catbird/api/sql` with `{"sql": …, "params": […], "maxRows": n}`.
    ///
    /// Refused (``APICall/refusal``: 400, nothing sent) for a non-finite `.real` parameter,
    /// which JSON cannot carry (tester finding tester44c-F5: a raw `EncodingError`).
    static func sql(_ query: String, params: [CatbirdSQLValue], maxRows: Int?) -> APICall {
        let path = ["catbird", "api", "sql"]
        for (index, param) in params.enumerated() {
            if case let .real(value) = param, !value.isFinite {
                return APICall.json("POST", path) { (result: CatbirdSQLResult) in result }.refused(CatbirdError(
                    refusal: "'params[\(index)]' is \(value), which JSON cannot carry (refused by the client, nothing sent)"))
            }
        }
        let body = CatbirdJSON.encodeKnownEncodable(SQLBody(sql: query, params: params, maxRows: maxRows))
        return .json("POST", path, body: body) { (result: CatbirdSQLResult) in result }
    }
}

private struct SQLBody: Encodable {
    let sql: String
    let params: [CatbirdSQLValue]
    /// Left out when nil (the synthesized encoding uses encodeIfPresent).
    let maxRows: Int?
}
