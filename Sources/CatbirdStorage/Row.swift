import CatbirdSupport

/// One result row: column names and values at the same positions.
public struct Row: Sendable, Hashable {
    /// Column names as SQLite reports them (`AS` aliases where given), in select order.
    public let columns: [String]
    /// Values, `values[i]` belonging to `columns[i]`.
    public let values: [SQLiteValue]

    /// A row of `values` under `columns`; the two must have the same count (else it traps).
    public init(columns: [String], values: [SQLiteValue]) {
        precondition(columns.count == values.count, "Row: \(columns.count) column(s), \(values.count) value(s)")
        self.columns = columns
        self.values = values
    }

    /// The value at 0-based position `index`; traps when out of range.
    public subscript(_ index: Int) -> SQLiteValue {
        values[index]
    }

    /// The value of the first column named `name` (exact match first, then ASCII
    /// case-insensitive, as SQL names are); traps when there is none — a programmer error.
    /// Use `value(named:)` to test for a column.
    public subscript(_ name: String) -> SQLiteValue {
        guard let value = value(named: name) else {
            preconditionFailure("no column '\(name)' in row with columns \(columns)")
        }
        return value
    }

    /// The value of the first column named `name` (exact, then ASCII case-insensitive match),
    /// or `nil` when there is no such column.
    public func value(named name: String) -> SQLiteValue? {
        if let index = columns.firstIndex(of: name) {
            return values[index]
        }
        if let index = columns.firstIndex(where: { $0.equalsIgnoringASCIICase(name) }) {
            return values[index]
        }
        return nil
    }
}
