import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

extension MockRecords {
    /// Every row of `mocks` as a mock, ordered by tenant, then position: read through the view
    /// (migrations/0014_mock_bodies_in_pieces.sql), so a body in pieces comes whole, as users
    /// read it. Each row is
    /// read by the shapes of docs/schema.md#tables, then given to `check` (the checks of an
    /// `update`, passed in by the server), then prepared with its regular expressions left to
    /// compile later (``CatbirdMatching/CompiledRequestPattern/init(stored:)``, try9b F14).
    /// - Throws: ``UnloadableMockRow`` naming the first row (and its column) that is not
    ///   such a mock (tester finding tester21b-F7), or `SQLiteError`.
    static func loadAll(_ db: Database, check: (RequestPattern, ResponseMock) throws(MockRefusal) -> Void) throws -> [Mock] {
        let rows = try db.query("""
            SELECT id, tenant, position, method, url_kind, url_value, header_patterns, status,
                   response_headers, response_body, remaining_limit, delay_seconds, hits, created_at, body_pattern
            FROM mocks ORDER BY tenant, position
            """)
        let decoder = JSONDecoder()
        return try rows.map { row in try mock(row, decoder: decoder, check: check) }
    }

    /// One row as a mock (``loadAll(_:check:)``).
    private static func mock(
        _ row: Row, decoder: JSONDecoder, check: (RequestPattern, ResponseMock) throws(MockRefusal) -> Void
    ) throws(UnloadableMockRow) -> Mock {
        let id = row["id"].intValue ?? 0
        let tenant = row["tenant"].stringValue ?? ""
        func unloadable(_ column: String, _ problem: String) -> UnloadableMockRow {
            UnloadableMockRow(id: id, tenant: tenant, column: column, problem: problem)
        }
        /// A TEXT column of JSON `shape` decoded as `Value`; nil for NULL; `{}` as `empty`
        /// (when given) without running the decoder.
        func json<Value: Decodable>(
            _ column: String, _ type: Value.Type, empty: Value? = nil, shape: String
        ) throws(UnloadableMockRow) -> Value? {
            let value = row[column]
            if value.isNull { return nil }
            guard let text = value.stringValue else { throw unloadable(column, "must be TEXT holding JSON \(shape), not \(value.typeName)") }
            if text == "{}", let empty { return empty }
            if let syntaxError = JSONTextCheck.scan(Array(text.utf8), as: .value).syntaxError {
                throw unloadable(column, "is not valid JSON (\(syntaxError)); it must be JSON \(shape)")
            }
            do {
                return try decoder.decode(Value.self, from: Data(text.utf8))
            } catch let error as DecodingError {
                // The control body's reason, worded for a body at the top level.
                throw unloadable(column, "is not JSON \(shape) (\(error.readableReason.replacingOccurrences(of: "the JSON body", with: "the value")))")
            } catch {
                throw unloadable(column, "is not JSON \(shape) (\(error))")
            }
        }
        /// An INTEGER column; nil for NULL.
        func integer(_ column: String) throws(UnloadableMockRow) -> Int? {
            let value = row[column]
            if value.isNull { return nil }
            guard let number = value.intValue else { throw unloadable(column, "must be an INTEGER, not \(value.typeName)") }
            return Int(number)
        }
        /// A TEXT column (NOT NULL in the schema).
        func text(_ column: String) throws(UnloadableMockRow) -> String {
            let value = row[column]
            guard let text = value.stringValue else { throw unloadable(column, "must be TEXT, not \(value.typeName)") }
            return text
        }

        let urlKindText = try text("url_kind")
        guard let urlKind = PatternMatch.Kind(rawValue: urlKindText) else {
            throw unloadable("url_kind", "must be 'equal', 'wildcard' or 'regexp', not \(JSONText.shortString(urlKindText))")
        }
        let headerPatterns = try json("header_patterns", [String: PatternMatch].self, empty: [:], shape: #"{"Name": {"kind": "…", "value": "…"}}"#)
        let responseHeaders = try json("response_headers", [String: String].self, empty: [:], shape: #"{"Name": "value"}"#)
        let body = try json("body_pattern", BodyPattern.self, shape: #"{"kind": "…", "value": "…"} or NULL"#)
        let bodyValue = row["response_body"]
        guard bodyValue.isNull || bodyValue.blobValue != nil else {
            throw unloadable("response_body", "must be a BLOB or NULL, not \(bodyValue.typeName) (write text as CAST('…' AS BLOB))")
        }
        guard let status = try integer("status") else { throw unloadable("status", "must be an INTEGER, not NULL") }
        let remaining = try integer("remaining_limit")
        let pattern = RequestPattern(
            method: RequestPattern.HTTPMethod(rawValue: try text("method")),
            url: PatternMatch(kind: urlKind, value: try text("url_value")), headers: headerPatterns ?? [:], body: body)
        let response = ResponseMock(
            status: status, headers: responseHeaders ?? [:], body: bodyValue.blobValue.map { Data($0) }, limit: remaining,
            delay: try integer("delay_seconds"))
        do {
            try check(pattern, response)
        } catch {
            throw unloadable(error.field.column, "is refused as an update would refuse it: \(error.reason)")
        }
        let compiled: CompiledRequestPattern
        do {
            compiled = try CompiledRequestPattern(stored: pattern)
        } catch {
            throw unloadable("body_pattern", "is refused as an update would refuse it: \(error.reason)")
        }
        // Shown as the mock's createdAt: a text that is no time was shown as 1970-01-01T00:00:00.000Z
        // (tester finding tester54a-F4: `'2026'` written by hand).
        let createdAt = try text("created_at")
        guard Timestamp.date(from: createdAt) != nil else {
            throw unloadable(
                "created_at", "must be a UTC time as ISO 8601 with milliseconds (strftime('%Y-%m-%dT%H:%M:%fZ','now')), not \(JSONText.shortString(createdAt))")
        }
        return Mock(
            id: id, tenant: TenantID(tenant), position: row["position"].intValue ?? 0, pattern: compiled,
            response: response, remainingLimit: remaining, hits: Int(row["hits"].intValue ?? 0),
            createdAt: createdAt)
    }
}
