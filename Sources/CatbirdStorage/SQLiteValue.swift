import CatbirdSupport

/// One SQLite value, as bound to a statement parameter or read from a result column.
///
/// The cases mirror SQLite's five storage classes
/// (<https://www.sqlite.org/datatype3.html>). Text is UTF-8; a `.blob` may be empty, and an
/// empty blob is distinct from `.null` (it is stored as `X''`, not `NULL`).
///
/// Literals build values directly: `42` is `.integer(42)`, `1.5` is `.real(1.5)` and `"x"` is
/// `.text("x")`; write `.null` for SQL `NULL`.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer (SQLite `INTEGER`).
    case integer(Int64)
    /// An IEEE 754 double (SQLite `REAL`).
    case real(Double)
    /// UTF-8 text (SQLite `TEXT`).
    case text(String)
    /// Raw bytes (SQLite `BLOB`); `[]` is an empty blob, not `NULL`.
    case blob([UInt8])
}

extension SQLiteValue {
    /// The storage class's name as SQLite's `typeof()` spells it in upper case: `NULL`,
    /// `INTEGER`, `REAL`, `TEXT`, `BLOB` (<https://www.sqlite.org/datatype3.html>).
    public var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// `true` for `.null` only.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The integer of an `.integer`; `nil` for every other case (no conversion from text or real).
    public var intValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number of a `.real`, or an `.integer` converted to `Double` (which may round beyond
    /// 2^53); `nil` for `.null`, `.text` and `.blob`.
    public var doubleValue: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    /// The string of a `.text`; `nil` for every other case (blobs are not decoded).
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes of a `.blob` (`[]` for an empty blob); `nil` for every other case.
    public var blobValue: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    /// `.integer(value)`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    /// `.real(value)`.
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    /// `.text(value)`.
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLiteValue: CustomStringConvertible {
    /// A short SQL-like rendering for logs: `NULL`, `42`, `1.5`, `'text'` (quotes doubled),
    /// `X'00FF'` (hex) — not meant to be executed.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value):
            var quoted = "'"
            for character in value {
                quoted.append(character)
                if character == "'" { quoted.append("'") }
            }
            return quoted + "'"
        case .blob(let bytes):
            var hex: [UInt8] = []
            hex.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                hex.append(ASCIIByte.upperHexDigit(byte >> 4))
                hex.append(ASCIIByte.upperHexDigit(byte))
            }
            return "X'" + String(decoding: hex, as: UTF8.self) + "'"
        }
    }
}
