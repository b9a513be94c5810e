import CatbirdTestSupport
import Foundation

/// Small helpers shared by `FixtureReplayTests` and `ControlBadInputTests`, kept in one
/// namespace so they cannot clash with other helpers in this test module.
enum FixtureTestSupport {
    /// A stable text form of a JSON value (sorted keys, no extra whitespace), for comparing two
    /// parsed values regardless of key order; `"<not JSON>"` when `value` cannot be serialised.
    static func canonical(_ value: Any?) -> String {
        guard let value else { return "<absent>" }
        guard let data = try? JSONSerialization.data(
            withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
        ) else {
            return "<not JSON: \(value)>"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `GET /catbird/api/mocks` for `tenant` (`""` = the default tenant, no header).
    static func listMocks(_ client: RawHTTPClient, tenant: String) throws -> RawResponse {
        try client.request("GET", "/catbird/api/mocks", headers: tenant.isEmpty ? [] : [("X-Catbird-Parallel-Id", tenant)])
    }

    /// `SELECT COUNT(*) FROM requests` through the SQL route; nil when the answer is not a count.
    static func journalCount(_ client: RawHTTPClient) throws -> Int? {
        let answer = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT COUNT(*) FROM requests"}"#)
        guard answer.status == 200, let rows = answer.object["rows"] as? [[Any]], let first = rows.first?.first else {
            return nil
        }
        return JSONNumber.int(first)
    }
}
