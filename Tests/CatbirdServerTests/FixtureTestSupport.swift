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

    /// A JSON number read as a whole number (nil for anything else, including `null`).
    static func int(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: return number
        case let number as Int64: return Int(number)
        case let number as Double where number.rounded() == number: return Int(number)
        case let number as NSNumber: return number.intValue
        default: return nil
        }
    }

    /// A JSON number read as seconds.
    static func double(_ value: Any?) -> Double? {
        switch value {
        case let number as Double: return number
        case let number as Int: return Double(number)
        case let number as NSNumber: return number.doubleValue
        default: return nil
        }
    }

    /// Sends one request built from its parts over `client` and reads the answer. Unlike
    /// `RawHTTPClient.request`, a `Host` given in `headers` replaces the default
    /// `Host: 127.0.0.1` (proxy-form requests carry the origin's host). Headers go out in name
    /// order; a body gets a Content-Length.
    static func send(
        _ client: RawHTTPClient, _ method: String, _ target: String,
        headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> RawResponse {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: 127.0.0.1\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try client.send(raw: Array(head.utf8) + (body ?? []))
        return try client.readResponse(forHead: method == "HEAD")
    }

    /// `GET /catbird/api/mocks` for `tenant` (`""` = the default tenant, no header).
    static func listMocks(_ client: RawHTTPClient, tenant: String) throws -> RawResponse {
        try send(client, "GET", "/catbird/api/mocks", headers: tenant.isEmpty ? [] : [("X-Catbird-Parallel-Id", tenant)])
    }

    /// `SELECT COUNT(*) FROM requests` through the SQL route; nil when the answer is not a count.
    static func journalCount(_ client: RawHTTPClient) throws -> Int? {
        let answer = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT COUNT(*) FROM requests"}"#)
        guard answer.status == 200, let rows = answer.object["rows"] as? [[Any]], let first = rows.first?.first else {
            return nil
        }
        return int(first)
    }
}
