import CatbirdSupport
import Foundation

/// One SQLite value: a cell of a ``CatbirdSQLResult`` or a parameter of `Catbird.sql(_:params:maxRows:)`.
///
/// Literals work as parameters: `["/api/feed", 200, 1.5, nil, true]` (`true`/`false` bind as
/// 1/0).
///
/// JSON cannot tell a whole REAL from an INTEGER, so a REAL column holding `2.0` reads as
/// `.integer(2)`; use ``doubleValue`` to read numbers either way. A REAL that JSON cannot
/// hold (an infinity) arrives as `.null`, as SQLite's own NaN does.
public enum CatbirdSQLValue: Hashable, Sendable, Codable, ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// SQL NULL.
    case null
    /// An INTEGER.
    case integer(Int64)
    /// A REAL (see above for whole numbers).
    case real(Double)
    /// TEXT.
    case text(String)
    /// A BLOB (on the wire: `{"base64": "…"}`, in results and parameters alike).
    case blob(Data)

    /// `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `.real`.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `.text`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `.integer(1)` for true, `.integer(0)` for false (SQLite has no boolean type).
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }

    /// The integer; a REAL that is a whole number converts, anything else is nil.
    public var intValue: Int64? {
        switch self {
        case let .integer(value): return value
        case let .real(value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The number as a Double (INTEGER or REAL); nil for anything else.
    public var doubleValue: Double? {
        switch self {
        case let .integer(value): return Double(value)
        case let .real(value): return value
        default: return nil
        }
    }

    /// The text; nil for anything else (a BLOB included: see ``dataValue``).
    public var stringValue: String? {
        if case let .text(value) = self { return value }
        return nil
    }

    /// The bytes of a BLOB, or the UTF-8 bytes of a TEXT; nil for anything else.
    public var dataValue: Data? {
        switch self {
        case let .blob(value): return value
        case let .text(value): return Data(value.utf8)
        default: return nil
        }
    }

    /// Whether this is SQL NULL.
    public var isNull: Bool { self == .null }

    private enum BlobKeys: String, CodingKey {
        case base64
    }

    /// Reads a JSON null, number, string or `{"base64": "…"}` object.
    ///
    /// - Throws: `DecodingError` for anything else (an array, a bool, invalid base64).
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let integer = try? container.decode(Int64.self) {
                self = .integer(integer)
                return
            }
            if let real = try? container.decode(Double.self) {
                self = .real(real)
                return
            }
            if let text = try? container.decode(String.self) {
                self = .text(text)
                return
            }
        }
        let container = try decoder.container(keyedBy: BlobKeys.self)
        let base64 = try container.decode(String.self, forKey: .base64)
        guard let bytes = Data(strictBase64: base64) else {
            throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "not valid base64")
        }
        self = .blob(bytes)
    }

    /// Writes a JSON null, number, string or `{"base64": "…"}` object.
    ///
    /// - Throws: `EncodingError` for a non-finite `.real` (JSON has no such numbers).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case let .integer(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .real(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .text(value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case let .blob(value):
            var container = encoder.container(keyedBy: BlobKeys.self)
            try container.encode(value.base64EncodedString(), forKey: .base64)
        }
    }
}
