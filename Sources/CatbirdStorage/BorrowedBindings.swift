/// Text and blob parameters gathered into one buffer and bound from there without copies
/// (``Statement/bind(borrowedText:at:)``, `SQLITE_STATIC`).
///
/// SQLite copies every text or blob bound the usual way (`SQLITE_TRANSIENT`): an allocation,
/// a copy and a free per value, inside SQLite. A statement with many of them (the journal's
/// multi-row `INSERT`, seven texts and two blobs per row) gathers them here instead: one copy
/// into a buffer the caller reuses from statement to statement, bound in place while the
/// statement runs (``bound(to:_:)``).
public struct BorrowedBindings {
    /// The gathered values' bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Each value: its parameter index, where its bytes are in `bytes`, and whether it is text.
    private var values: [(index: Int32, start: Int, count: Int, isText: Bool)] = []

    public init() {}

    /// Forgets every value, keeping the buffers' capacity for the next statement.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// Adds `text` (UTF-8) for parameter `index` (1-based); `""` binds empty text, not `NULL`.
    public mutating func add(text: String, at index: Int32) {
        var text = text
        // Copied from the string's own UTF-8 storage (`append(contentsOf: text.utf8)` walks the
        // view byte by byte).
        text.withUTF8 { utf8 in
            values.append((index, bytes.count, utf8.count, true))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Adds a blob for parameter `index` (1-based); `[]` binds an empty blob, not `NULL`.
    public mutating func add(bytes blob: [UInt8], at index: Int32) {
        values.append((index, bytes.count, blob.count, false))
        bytes.append(contentsOf: blob)
    }

    /// Binds every value added to `statement` (its other parameters are the caller's), runs
    /// `body`, which steps it, then resets it (``Statement/reset()``: every parameter `NULL`
    /// again), so SQLite keeps no pointer into the buffer once this returns, whether `body`
    /// returned or threw.
    /// - Throws: what `body` throws.
    public func bound<Value>(to statement: Statement, _ body: () throws(SQLiteError) -> Value) throws(SQLiteError) -> Value {
        // `withUnsafeBytes` rethrows untyped errors: the outcome is carried out as a Result.
        let outcome = bytes.withUnsafeBytes { buffer -> Result<Value, SQLiteError> in
            defer { statement.reset() }
            for value in values {
                let slice = UnsafeRawBufferPointer(rebasing: buffer[value.start..<(value.start + value.count)])
                if value.isText {
                    statement.bind(borrowedText: slice, at: value.index)
                } else {
                    statement.bind(borrowedBytes: slice, at: value.index)
                }
            }
            return Result { () throws(SQLiteError) in try body() }
        }
        return try outcome.get()
    }
}
