import CatbirdStorage
import CSQLite

/// SQLite's `printf` and `format` SQL functions with their width and precision bounded by the
/// connection's length limit, installed over the built-in ones on a user-SQL connection.
///
/// Why: in SQLite 3.40 a `%c` conversion with a precision appends its character one call at a
/// time, and keeps looping after the length limit has failed the result, so
/// `printf('%.*c', 2000000000, 'x')` spins two billion times (10–15 s measured, 70 s on a
/// loaded machine) inside one function call, where neither the progress handler nor
/// `sqlite3_interrupt` is ever consulted. The guard reads the format the way SQLite's printf
/// does (<https://www.sqlite.org/printf.html>: flags, width or `*`, `.` precision or `.*`) and
/// fails the call with `SQLITE_TOOBIG` when any width or precision, after SQLite's own
/// normalisation (31-bit mask, absolute value of a negative `*` argument), exceeds the length
/// limit: such a result could never be built anyway. Otherwise the call is handed unchanged to
/// the built-in `printf` on a private in-memory connection, so every result stays SQLite's.
///
/// Not Sendable: called by SQLite on the thread running the user's query, under its reader's lock.
final class FormatFunctionGuard {
    /// The private connection whose built-in `printf` computes the results.
    private let side: OpaquePointer
    /// `SELECT printf(?1, …, ?n)` on `side`, by argument count n.
    private var statements: [Int32: OpaquePointer] = [:]
    /// The largest width or precision allowed: the user connection's length limit in bytes.
    let limit: Int

    /// Opens the private connection with the same length limit.
    /// - Throws: `SQLiteError` when SQLite cannot open an in-memory database.
    init(limit: Int) throws(SQLiteError) {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let error = SQLiteError.current(handle, code: status, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: limit))
        side = handle
        self.limit = limit
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(side)
    }

    /// Installs the guarded `printf` and `format` (any number of arguments) on `database`
    /// (<https://www.sqlite.org/c3ref/create_function.html>); each registration holds a retain
    /// of this object, released by SQLite's destroy callback when the connection closes.
    /// - Throws: `SQLiteError` when SQLite refuses a registration.
    func install(on database: Database) throws(SQLiteError) {
        let handle = database.connection.open("Database")
        for name in ["printf", "format"] {
            let userData = Unmanaged.passRetained(self).toOpaque()
            let status = sqlite3_create_function_v2(
                handle, name, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, userData,
                { context, count, arguments in
                    guard let context else { return }
                    Unmanaged<FormatFunctionGuard>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                        .call(context, count: count, arguments: arguments)
                },
                nil, nil,
                { userData in
                    guard let userData else { return }
                    Unmanaged<FormatFunctionGuard>.fromOpaque(userData).release()
                })
            guard status == SQLITE_OK else { throw SQLiteError.current(handle, code: status, sql: nil) }
        }
    }

    /// One call: checked, then computed by the built-in `printf` on the private connection.
    private func call(
        _ context: OpaquePointer, count: Int32, arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        // Like the built-in: no format (no argument) gives NULL.
        guard count >= 1, let arguments else {
            sqlite3_result_null(context)
            return
        }
        if let format = sqlite3_value_text(arguments[0]) {
            let length = Int(sqlite3_value_bytes(arguments[0]))
            let bytes = UnsafeBufferPointer(start: format, count: length)
            let widest = Self.widestField(format: bytes) { index in
                index < Int(count) ? sqlite3_value_int64(arguments[index]) : 0
            }
            if widest > limit {
                sqlite3_result_error_toobig(context)
                return
            }
        }
        guard let statement = statement(arguments: count) else {
            sqlite3_result_error(context, sqlite3_errmsg(side), -1)
            return
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for index in 0..<Int(count) { sqlite3_bind_value(statement, Int32(index + 1), arguments[index]) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_ROW else {
            let code = sqlite3_errcode(side)
            if code == SQLITE_TOOBIG { sqlite3_result_error_toobig(context) } else { sqlite3_result_error(context, sqlite3_errmsg(side), -1) }
            return
        }
        sqlite3_result_value(context, sqlite3_column_value(statement, 0))
    }

    /// The cached `SELECT printf(?1, …)` for `count` arguments, prepared on first use.
    private func statement(arguments count: Int32) -> OpaquePointer? {
        if let statement = statements[count] { return statement }
        let sql = "SELECT printf(" + (1...Int(count)).map { "?\($0)" }.joined(separator: ", ") + ")"
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(side, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        statements[count] = statement
        return statement
    }

    /// The largest width or precision any conversion of `format` asks for, as SQLite 3.40's
    /// printf computes them: digits masked to 31 bits; a `*` takes the next argument (read by
    /// `argument(index)`, index 0 being the format itself) as a 32-bit int whose absolute value
    /// is used. Conversions consume one argument each, except `%%` and `%n`; an unknown
    /// conversion ends the format, as in SQLite.
    static func widestField(format: UnsafeBufferPointer<UInt8>, argument: (Int) -> Int64) -> Int {
        var widest = 0
        var nextArgument = 1
        var index = 0
        func starArgument() -> Int {
            let value = Int32(truncatingIfNeeded: argument(nextArgument))
            nextArgument += 1
            return value == Int32.min ? 0 : Int(value.magnitude)
        }
        func digits() -> Int {
            var value: UInt32 = 0
            while index < format.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(format[index]) {
                value = value &* 10 &+ UInt32(format[index] - UInt8(ascii: "0"))
                index += 1
            }
            return Int(value & 0x7fff_ffff)
        }
        while index < format.count {
            guard format[index] == UInt8(ascii: "%") else { index += 1; continue }
            index += 1
            // Flags.
            while index < format.count, "-+ #!0,".utf8.contains(format[index]) { index += 1 }
            // Width.
            if index < format.count, format[index] == UInt8(ascii: "*") {
                widest = max(widest, starArgument())
                index += 1
            } else {
                widest = max(widest, digits())
            }
            // Precision.
            if index < format.count, format[index] == UInt8(ascii: ".") {
                index += 1
                if index < format.count, format[index] == UInt8(ascii: "*") {
                    widest = max(widest, starArgument())
                    index += 1
                } else {
                    widest = max(widest, digits())
                }
            }
            // Length modifiers, then the conversion.
            while index < format.count, format[index] == UInt8(ascii: "l") { index += 1 }
            guard index < format.count else { break }
            let conversion = format[index]
            index += 1
            if conversion == UInt8(ascii: "%") || conversion == UInt8(ascii: "n") { continue }
            guard "dsgzqQwcouxXfeEGipr".utf8.contains(conversion) else { break }
            nextArgument += 1
        }
        return widest
    }
}
