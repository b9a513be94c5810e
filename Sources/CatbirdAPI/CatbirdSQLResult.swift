import Foundation

/// The answer of a read-only SQL query (`Catbird.sql(_:params:maxRows:)`).
public struct CatbirdSQLResult: Codable, Hashable, Sendable {
    /// The result's column names, in order.
    public var columns: [String]

    /// The rows; each has one value per column, in the order of ``columns``.
    public var rows: [[CatbirdSQLValue]]

    /// Whether rows were left out because the query returned more than `maxRows`.
    public var truncated: Bool

    /// The values of the column named `name` (the first such column), one per row; nil when
    /// there is no such column.
    public func column(_ name: String) -> [CatbirdSQLValue]? {
        guard let index = columns.firstIndex(of: name) else { return nil }
        return rows.map { $0.indices.contains(index) ? $0[index] : .null }
    }

    /// Each row as a dictionary, column name → value (a repeated column name keeps its last value).
    public var dictionaries: [[String: CatbirdSQLValue]] {
        rows.map { row in
            var dictionary: [String: CatbirdSQLValue] = [:]
            for (name, value) in zip(columns, row) { dictionary[name] = value }
            return dictionary
        }
    }
}
