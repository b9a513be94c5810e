import CSQLite

/// Reading the current row (<https://www.sqlite.org/c3ref/column_blob.html>), valid after
/// `step()` returned `true` and until the next `step()` or `reset()`. Column indexes are
/// 0-based, below `columnCount`; an index out of range is a programmer error and traps.
extension Statement {
    /// Number of result columns; 0 for statements returning no rows
    /// (<https://www.sqlite.org/c3ref/column_count.html>).
    public var columnCount: Int32 {
        sqlite3_column_count(handle)
    }

    /// Name of result column `index` (0-based): its `AS` alias, else a name SQLite derives
    /// (<https://www.sqlite.org/c3ref/column_name.html>).
    public func columnName(_ index: Int32) -> String {
        guard let name = sqlite3_column_name(handle, checkedColumn(index)) else { return "" }
        return String(cString: name)
    }

    /// All result column names, in order.
    public var columnNames: [String] {
        (0..<columnCount).map(columnName)
    }

    /// Value of column `index` (0-based) in the current row, in its stored class: text is
    /// decoded as UTF-8 (invalid bytes become U+FFFD), an empty blob is `.blob([])`.
    public func column(_ index: Int32) -> SQLiteValue {
        let index = checkedColumn(index)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            return .text(rawText(at: index))
        case SQLITE_BLOB:
            return .blob(rawBytes(at: index))
        default:
            return .null
        }
    }

    /// The length in bytes of column `index` (0-based) of the current row when it is a text
    /// or blob, read without copying the value out (`sqlite3_column_bytes`); 0 for other types
    /// (calling it on a number would convert the number to text).
    public func byteCount(at index: Int32) -> Int {
        let index = checkedColumn(index)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_TEXT, SQLITE_BLOB:
            return Int(sqlite3_column_bytes(handle, index))
        default:
            return 0
        }
    }

    /// The current row's values, column 0 first.
    public var currentRow: [SQLiteValue] {
        (0..<columnCount).map(column)
    }

    /// Column `index` (0-based) as an integer, converted by SQLite if stored otherwise
    /// (`NULL` → 0, text → leading number); the hot-path alternative to `column(_:)`.
    public func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, checkedColumn(index))
    }

    /// Column `index` (0-based) as text, or `nil` when it is `NULL`; numbers are rendered by SQLite.
    public func string(at index: Int32) -> String? {
        let index = checkedColumn(index)
        if sqlite3_column_type(handle, index) == SQLITE_NULL { return nil }
        return rawText(at: index)
    }

    /// Column `index` (0-based) as bytes, or `nil` when it is `NULL`; text gives its UTF-8 bytes.
    public func bytes(at index: Int32) -> [UInt8]? {
        let index = checkedColumn(index)
        if sqlite3_column_type(handle, index) == SQLITE_NULL { return nil }
        return rawBytes(at: index)
    }

    private func rawText(at index: Int32) -> String {
        // Pointer first, then length: the call order SQLite documents.
        guard let characters = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    private func rawBytes(at index: Int32) -> [UInt8] {
        guard let base = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    private func checkedColumn(_ index: Int32) -> Int32 {
        _ = connection.open("Statement")
        precondition(
            index >= 0 && index < sqlite3_column_count(handle),
            "column index \(index) out of 0..<\(sqlite3_column_count(handle)) — in: \(sql)"
        )
        return index
    }
}
