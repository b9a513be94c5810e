import CatbirdSupport
import CatbirdWire

/// A JSON value as the `json` and `jsonPath` body matchers compare it
/// (docs/matching.md#body-matchers): as ``CatbirdWire/JSONValue`` (object key order ignored,
/// numbers as 64-bit floats so `1` equals `1.0`, `true` is not `1`), but strings and object keys
/// compared exactly, Unicode scalar by scalar (``ExactString``), as RFC 8259 §8.3 compares them.
///
/// Why not ``CatbirdWire/JSONValue``: its strings and keys are Swift `String`s, whose `==` and
/// hashing use Unicode canonical equivalence, so `"é"` (U+00E9) equalled `"e\u0301"` and
/// `"\u212A"` (KELVIN SIGN) equalled `"K"`: a `json` pattern matched bodies a backend reads as
/// other keys or values, and an object with both `"é"` and `"e\u0301"` as keys could not be held
/// (its pattern was refused as naming a key twice; tester finding tester21a-F5).
public enum ExactJSON: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(ExactString)
    case array([ExactJSON])
    case object([ExactString: ExactJSON])

    /// `value` with its strings and keys compared exactly. An object `value` holds has already
    /// lost any key canonically equivalent to another (a `[String: JSONValue]` cannot hold both).
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case let .bool(bool): self = .bool(bool)
        case let .number(number): self = .number(number)
        case let .string(text): self = .string(ExactString(text))
        case let .array(items): self = .array(items.map(ExactJSON.init))
        case let .object(members):
            self = .object(Dictionary(uniqueKeysWithValues: members.map { (ExactString($0.key), ExactJSON($0.value)) }))
        }
    }

    /// Compact JSON text, keys sorted (``ExactString/precedes(_:)``), as ``CatbirdWire/JSONValue/jsonText`` writes it.
    var jsonText: String {
        switch self {
        case .null: return "null"
        case let .bool(value): return JSONValue.bool(value).jsonText
        case let .number(value): return JSONValue.number(value).jsonText
        case let .string(value): return JSONText.string(value.text)
        case let .array(values): return "[" + values.map(\.jsonText).joined(separator: ",") + "]"
        case let .object(members):
            return "{" + members.sorted { $0.key.precedes($1.key) }.map { "\(JSONText.string($0.key.text)):\($0.value.jsonText)" }
                .joined(separator: ",") + "}"
        }
    }
}
