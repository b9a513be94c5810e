import CatbirdSupport
import Foundation

/// Any JSON value, read and compared as JSON: object key order and whitespace do not matter,
/// `1` and `1.0` are equal (numbers are compared as `Double`, so integers beyond 2^53 may
/// compare equal to their neighbours), `true` is not `1`.
///
/// Used by ``BodyPattern``: the `equalTo` of a `jsonPath` pattern, and the server's reading of
/// a `json` pattern and of a request body. JSON `null` is ``null`` (a Swift `nil` would mean
/// no value at all). Its `==` compares strings and keys as Swift's `String` does (Unicode
/// canonical equivalence); the server's matchers compare them exactly instead, code point by
/// code point (docs/matching.md#json-strings-and-keys).
public enum JSONValue: Codable, Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, held as a `Double` (integers past 2^53 lose their last digits).
    case number(Double)
    /// A string.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object; key order does not matter.
    case object([String: JSONValue])

    /// `"text"` as ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `7` as ``number(_:)``.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// `2.5` as ``number(_:)``.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `true` as ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Reads any JSON value.
    ///
    /// - Throws: `DecodingError` only for a value that is none of JSON's kinds (not possible
    ///   with `JSONDecoder`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Writes the value as JSON; a non-finite number (which JSON cannot hold) as `null`.
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value): if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// The first number in the value (depth first, object keys in sorted order) that JSON cannot
    /// hold (NaN or an infinity, which ``encode(to:)`` writes as `null`), with its path from
    /// `path` in the syntax `jsonPath` uses (`$.a[0]`); nil when every number is finite. For a
    /// client to refuse such a value rather than send `null` in its place (tester finding
    /// tester44c-F5: `equalTo: .nan` became a mock for `null`).
    public func nonFiniteNumber(path: String = "$") -> (path: String, value: Double)? {
        switch self {
        case let .number(value): return value.isFinite ? nil : (path, value)
        case let .array(items):
            for (index, item) in items.enumerated() {
                if let found = item.nonFiniteNumber(path: "\(path)[\(index)]") { return found }
            }
            return nil
        case let .object(fields):
            for key in fields.keys.sorted() {
                if let found = fields[key]!.nonFiniteNumber(path: "\(path).\(key)") { return found }
            }
            return nil
        case .null, .bool, .string: return nil
        }
    }

    /// The JSON text `data` holds, or nil when it is not JSON (a top-level scalar is accepted).
    public init?(json data: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        self = value
    }

    /// Compact JSON text, keys sorted: `{"a":[1,true,null]}` (integral numbers without `.0`).
    public var jsonText: String {
        switch self {
        case .null: return "null"
        case let .bool(value): return value ? "true" : "false"
        case let .number(value):
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        case let .string(value): return JSONText.string(value)
        case let .array(values): return "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case let .object(members):
            return "{" + members.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value.jsonText)" }
                .joined(separator: ",") + "}"
        }
    }
}
