import CatbirdStorage
import CSQLite

/// SQLite built-in functions whose one call can run for seconds, replaced on a user-SQL
/// connection by the same built-ins behind a check of their arguments (``CheckedFunction``).
///
/// Why: SQLite consults neither `sqlite3_interrupt` nor the progress handler inside a function
/// call (<https://www.sqlite.org/c3ref/interrupt.html>: "checked at … loops"; a function is one
/// virtual-machine instruction), so a call whose work grows as length × length held one of the
/// SQL pool's connections far past the 2-second limit: `instr` of a 100,001-byte needle in an
/// 8,000,000-byte haystack of `a`s ran 41 s, `printf('%.*c', 2000000000, 'x')` 10–15 s. A
/// checked call whose arguments pass is handed unchanged to the built-in on a private
/// in-memory connection, so every result stays SQLite's own; one that does not pass fails at
/// once, and ``takeRefusal()`` tells the reader why.
///
/// Not Sendable: called by SQLite on the thread running the user's query, under its reader's lock.
final class CheckedBuiltinFunctions {
    /// The private connection whose built-ins compute the results.
    private let side: OpaquePointer
    /// `SELECT name(?1, …, ?n)` on `side`, by "name/n".
    private var statements: [String: OpaquePointer] = [:]
    /// The user connection's length limit in bytes (`SQLITE_LIMIT_LENGTH`).
    let valueLimit: Int
    /// The refusal of the last call refused since ``takeRefusal()`` was last called.
    private var refusal: FunctionRefusal?
    /// The running query's deadline: a checked call after it fails at once with
    /// `SQLITE_INTERRUPT`, as SQLite's own interrupt would at the next loop step, so that one
    /// row of many such calls stops at the deadline (tester finding tester52b-F1: 200 columns of
    /// `replace(printf(…))` ran 12 s). Nil: no query runs.
    var deadline: ContinuousClock.Instant?

    /// Opens the private connection with `database`'s length and LIKE-pattern limits.
    /// - Throws: `SQLiteError` when SQLite cannot open an in-memory database.
    init(limitsOf database: Database) throws(SQLiteError) {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let error = SQLiteError.current(handle, code: status, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        let user = database.connection.open("Database")
        for limit in [SQLITE_LIMIT_LENGTH, SQLITE_LIMIT_LIKE_PATTERN_LENGTH] {
            sqlite3_limit(handle, limit, sqlite3_limit(user, limit, -1))
        }
        side = handle
        valueLimit = Int(sqlite3_limit(user, SQLITE_LIMIT_LENGTH, -1))
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(side)
    }

    /// The refusal of the last refused call, cleared: the reason a query failed with SQLite's
    /// error for it. Nil when no call was refused.
    func takeRefusal() -> FunctionRefusal? {
        defer { refusal = nil }
        return refusal
    }

    /// Installs every function of ``CheckedFunction/all`` over the built-in of the same name
    /// and argument count on `database` (<https://www.sqlite.org/c3ref/create_function.html>);
    /// each registration holds a retain of this object, released by SQLite's destroy callback
    /// when the connection closes.
    /// - Throws: `SQLiteError` when SQLite refuses a registration.
    func install(on database: Database) throws(SQLiteError) {
        let handle = database.connection.open("Database")
        for (index, function) in CheckedFunction.all.enumerated() {
            for argumentCount in function.argumentCounts {
                let registration = Registration(owner: self, function: index)
                let status = sqlite3_create_function_v2(
                    handle, function.name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                    Unmanaged.passRetained(registration).toOpaque(),
                    { context, count, arguments in
                        guard let context else { return }
                        let registration = Unmanaged<Registration>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                        registration.owner.call(
                            CheckedFunction.all[registration.function], context, count: count, arguments: arguments)
                    },
                    nil, nil,
                    { userData in
                        guard let userData else { return }
                        Unmanaged<Registration>.fromOpaque(userData).release()
                    })
                guard status == SQLITE_OK else { throw SQLiteError.current(handle, code: status, sql: nil) }
            }
        }
    }

    /// What one registration's `void*` points at: this object and which function it is.
    private final class Registration {
        let owner: CheckedBuiltinFunctions
        let function: Int
        init(owner: CheckedBuiltinFunctions, function: Int) {
            self.owner = owner
            self.function = function
        }
    }

    /// One call: checked, then computed by the built-in on the private connection.
    private func call(
        _ function: CheckedFunction, _ context: OpaquePointer, count: Int32,
        arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        let values = UnsafeBufferPointer(start: arguments, count: arguments == nil ? 0 : Int(count))
        if let deadline, ContinuousClock.now >= deadline {
            sqlite3_result_error(context, "interrupted", -1)
            sqlite3_result_error_code(context, SQLITE_INTERRUPT)
            return
        }
        if let refused = function.check(values, valueLimit) {
            if case .tooBig = refused {
                sqlite3_result_error_toobig(context)
            } else {
                refusal = refused
                sqlite3_result_error(context, refused.description, -1)
            }
            return
        }
        if function.returnsFirstArgument(values) {
            // As SQLite's replaceFunc (func.c, 3.40.1): the value read as text first (which
            // makes a blob read as text), then returned itself, subtype and all; bound on the
            // private connection it would lose its JSON subtype.
            _ = sqlite3_value_text(values[0])
            sqlite3_result_value(context, values[0])
            return
        }
        guard let statement = statement(function.name, arguments: count) else {
            sqlite3_result_error(context, sqlite3_errmsg(side), -1)
            return
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in values.enumerated() { Self.bind(value, at: Int32(index + 1), to: statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else {
            let code = sqlite3_errcode(side)
            switch code {
            case SQLITE_TOOBIG: sqlite3_result_error_toobig(context)
            case SQLITE_NOMEM: sqlite3_result_error_nomem(context)
            default:
                sqlite3_result_error(context, sqlite3_errmsg(side), -1)
                sqlite3_result_error_code(context, code)
            }
            return
        }
        let result = sqlite3_column_value(statement, 0)
        sqlite3_result_value(context, result)
        // A JSON function's result keeps its JSON subtype, so an enclosing json_object()
        // embeds it as JSON rather than as a string.
        let subtype = sqlite3_value_subtype(result)
        if subtype != 0 { sqlite3_result_subtype(context, subtype) }
    }

    /// Binds `value` without copying its bytes (`SQLITE_STATIC`: they stay valid until the call
    /// returns, and the statement is reset before that), keeping its type.
    private static func bind(_ value: OpaquePointer?, at index: Int32, to statement: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            sqlite3_bind_int64(statement, index, sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            sqlite3_bind_double(statement, index, sqlite3_value_double(value))
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            let length = sqlite3_value_bytes(value)
            sqlite3_bind_text64(
                statement, index, UnsafeRawPointer(text)?.assumingMemoryBound(to: CChar.self), UInt64(length), nil,
                UInt8(SQLITE_UTF8))
        case SQLITE_BLOB:
            let length = sqlite3_value_bytes(value)
            if let bytes = sqlite3_value_blob(value), length > 0 {
                sqlite3_bind_blob64(statement, index, bytes, UInt64(length), nil)
            } else {
                sqlite3_bind_zeroblob(statement, index, 0)
            }
        default:
            sqlite3_bind_null(statement, index)
        }
    }

    /// The cached `SELECT name(?1, …)` for `count` arguments, prepared on first use.
    private func statement(_ name: String, arguments count: Int32) -> OpaquePointer? {
        let key = "\(name)/\(count)"
        if let statement = statements[key] { return statement }
        let sql = "SELECT \(name)(" + (0..<Int(count)).map { "?\($0 + 1)" }.joined(separator: ", ") + ")"
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(side, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        statements[key] = statement
        return statement
    }
}
