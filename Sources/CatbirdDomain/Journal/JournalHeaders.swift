import CatbirdSupport
import Foundation

/// Header fields read back from a journal row's `request_headers` or `response_headers` JSON
/// (written by ``JSONText/object(_:)``): name → values in the order received.
///
/// A name's value in the JSON is a string (sent once) or an array of strings (repeated).
/// Text that is not such an object reads as no headers.
struct JournalHeaders: Sendable {
    /// Each name as stored (its first spelling) → its values, in the order received. The
    /// JSON's key order is not kept; look names up with ``firstValue(of:)``.
    private(set) var fields: [String: [String]] = [:]

    /// No headers.
    init() {}

    /// Parses a stored headers column; `nil` or unreadable text gives no headers.
    init(json: String?) {
        guard let json,
              let decoded = try? JSONDecoder().decode([String: Value].self, from: Data(json.utf8))
        else { return }
        fields = decoded.mapValues(\.values)
    }

    /// The first value of the header `name` (compared ASCII case-insensitively, as mock
    /// matching does), or nil when absent: what a header pattern is matched against.
    func firstValue(of name: String) -> String? {
        if let values = fields[name] { return values.first }
        return fields.first { $0.key.equalsIgnoringASCIICase(name) }?.value.first
    }

    /// Every value of the header `name` (compared ASCII case-insensitively), in the order
    /// received; empty when absent.
    func values(of name: String) -> [String] {
        if let values = fields[name] { return values }
        return fields.first { $0.key.equalsIgnoringASCIICase(name) }?.value ?? []
    }

    /// The journal listing's shape: each name with its values joined by ", " (RFC 9110 §5.3).
    var joined: [String: String] {
        fields.mapValues { $0.joined(separator: ", ") }
    }

    /// One `(name, value)` per value received (a repeated name once per value, in the order
    /// received), names sorted ASCII case-insensitively: the stored JSON keeps no order between
    /// names.
    var pairs: [(name: String, value: String)] {
        fields.sorted { $0.key.lowercased() < $1.key.lowercased() }.flatMap { name, values in values.map { (name, $0) } }
    }

    /// One name's stored value: a string or an array of strings.
    private struct Value: Decodable {
        let values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                values = [one]
            } else {
                values = try container.decode([String].self)
            }
        }
    }
}
