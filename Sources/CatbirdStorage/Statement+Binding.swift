import CSQLite

/// Binding parameter values (<https://www.sqlite.org/c3ref/bind_blob.html>). Indexes are
/// 1-based, up to `parameterCount`; an index out of that range is a programmer error and traps.
/// Text and blobs are copied by SQLite (`SQLITE_TRANSIENT`), so the Swift value may go away,
/// except with the `borrowed` binders, which spare the copy for bytes the caller keeps.
///
/// The single-value binders do not throw: a failure (`SQLITE_TOOBIG` for a value longer than
/// SQLite's length limit, `SQLITE_MISUSE` when the statement is mid-step, `SQLITE_NOMEM`) is
/// kept and thrown by the next `step()`, `run()`. `bind(_ values:)` throws at once.
extension Statement {
    /// Binds all parameters in order: `values[0]` to `?1`, and so on.
    ///
    /// Passing a count other than `parameterCount` is a programmer error and traps, naming the SQL.
    /// - Throws: `SQLiteError` for the first value SQLite refuses.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        precondition(
            values.count == Int(parameterCount),
            "SQL expects \(parameterCount) argument(s) but \(values.count) were given — in: \(sql)"
        )
        for (offset, value) in values.enumerated() {
            let status = bindStatus(value, at: Int32(offset + 1))
            if status != SQLITE_OK {
                throw SQLiteError.current(connection.open("Statement"), code: status, sql: sql)
            }
        }
    }

    /// Binds one value of any storage class at `index` (1-based).
    public func bind(_ value: SQLiteValue, at index: Int32) {
        record(bindStatus(value, at: checked(index)))
    }

    /// Binds a 64-bit integer at `index` (1-based).
    public func bind(_ value: Int64, at index: Int32) {
        record(sqlite3_bind_int64(handle, checked(index), value))
    }

    /// Binds an integer at `index` (1-based), stored as 64-bit.
    public func bind(_ value: Int, at index: Int32) {
        record(sqlite3_bind_int64(handle, checked(index), Int64(value)))
    }

    /// Binds a double at `index` (1-based). NaN is stored as `NULL` by SQLite.
    public func bind(_ value: Double, at index: Int32) {
        record(sqlite3_bind_double(handle, checked(index), value))
    }

    /// Binds UTF-8 text at `index` (1-based); `""` is empty text, not `NULL`.
    public func bind(_ value: String, at index: Int32) {
        record(bindText(value, at: checked(index)))
    }

    /// Binds a blob copied from `bytes` at `index` (1-based); zero bytes bind an empty blob, not `NULL`.
    public func bind(bytes: UnsafeRawBufferPointer, at index: Int32) {
        record(bindBytes(bytes, at: checked(index)))
    }

    /// Binds a blob of `bytes` at `index` (1-based); `[]` binds an empty blob, not `NULL`.
    public func bind(bytes: [UInt8], at index: Int32) {
        let index = checked(index)
        record(bytes.withUnsafeBytes { bindBytes($0, at: index) })
    }

    /// Binds UTF-8 text at `index` (1-based) without copying it (`SQLITE_STATIC`): SQLite reads
    /// the bytes where they are when the statement runs. The caller keeps `utf8` alive and
    /// unchanged until the parameter is bound again or the statement is reset with ``reset()``
    /// (which binds every parameter to `NULL`) or finalized
    /// (<https://www.sqlite.org/c3ref/bind_blob.html>). Empty text is `""`, not `NULL`.
    public func bind(borrowedText utf8: UnsafeRawBufferPointer, at index: Int32) {
        let index = checked(index)
        guard utf8.count <= Int(Int32.max) else { return record(SQLITE_TOOBIG) }
        guard let base = utf8.baseAddress, !utf8.isEmpty else {
            return record(catbird_sqlite3_bind_text_transient(handle, index, "", 0))
        }
        record(sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil))
    }

    /// Binds a blob at `index` (1-based) without copying it (`SQLITE_STATIC`), on the terms of
    /// ``bind(borrowedText:at:)``; zero bytes bind an empty blob, not `NULL`.
    public func bind(borrowedBytes bytes: UnsafeRawBufferPointer, at index: Int32) {
        let index = checked(index)
        guard bytes.count <= Int(Int32.max) else { return record(SQLITE_TOOBIG) }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return record(sqlite3_bind_zeroblob(handle, index, 0)) }
        record(sqlite3_bind_blob(handle, index, base, Int32(bytes.count), nil))
    }

    /// Binds `NULL` at `index` (1-based).
    public func bindNull(at index: Int32) {
        record(sqlite3_bind_null(handle, checked(index)))
    }

    private func bindStatus(_ value: SQLiteValue, at index: Int32) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(handle, index)
        case .integer(let number): return sqlite3_bind_int64(handle, index, number)
        case .real(let number): return sqlite3_bind_double(handle, index, number)
        case .text(let text): return bindText(text, at: index)
        case .blob(let bytes): return bytes.withUnsafeBytes { bindBytes($0, at: index) }
        }
    }

    private func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                // A NULL pointer would bind NULL; a pointer to "" binds empty text.
                return catbird_sqlite3_bind_text_transient(handle, index, "", 0)
            }
            return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                catbird_sqlite3_bind_text_transient(handle, index, $0, Int32(utf8.count))
            }
        }
    }

    private func bindBytes(_ bytes: UnsafeRawBufferPointer, at index: Int32) -> Int32 {
        guard bytes.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            // A NULL pointer would bind NULL; a zero-length zeroblob is an empty blob.
            return sqlite3_bind_zeroblob(handle, index, 0)
        }
        return catbird_sqlite3_bind_blob_transient(handle, index, base, Int32(bytes.count))
    }

    private func checked(_ index: Int32) -> Int32 {
        _ = connection.open("Statement")
        precondition(
            index >= 1 && index <= parameterCount,
            "parameter index \(index) out of 1...\(parameterCount) — in: \(sql)"
        )
        return index
    }

    private func record(_ status: Int32) {
        if status != SQLITE_OK && pendingBindError == nil {
            pendingBindError = SQLiteError.current(connection.handle, code: status, sql: sql)
        }
    }
}
