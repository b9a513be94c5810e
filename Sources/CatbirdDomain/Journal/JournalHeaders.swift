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
        values(of: name).first
    }

    /// Every value of the header `name` (compared ASCII case-insensitively, byte for byte
    /// otherwise), in the order received; empty when absent. The dictionary's own lookup finds a
    /// key by canonical equivalence (`X-\u{212A}ey`, with the KELVIN SIGN, found `X-Key`: tester
    /// finding tester39a-F9, a name no request can send counted requests), so a key it finds is
    /// taken only when its bytes are the name's.
    func values(of name: String) -> [String] {
        if let index = fields.index(forKey: name), fields[index].key.hasSameBytes(as: name) { return fields[index].value }
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
