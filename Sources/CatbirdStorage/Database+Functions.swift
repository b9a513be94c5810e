import CSQLite

/// Application-defined SQL functions (<https://www.sqlite.org/c3ref/create_function.html>).
extension Database {
    /// Registers the scalar SQL function `name` taking `argumentCount` arguments (-1: any
    /// number), computed by `body` on the thread running the statement. `body` reads its
    /// arguments lazily through ``SQLFunctionCall`` (a text or blob is copied only when asked
    /// for) and returns the result, or throws ``SQLFunctionError`` to fail the statement with
    /// that message.
    ///
    /// `deterministic` flags the function `SQLITE_DETERMINISTIC` (the same arguments always
    /// give the same result within a statement), which lets SQLite evaluate it fewer times.
    ///
    /// - Throws: `SQLiteError` when SQLite refuses the registration (e.g. `SQLITE_BUSY` while a
    ///   statement runs).
    public func createFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true,
        _ body: @escaping (SQLFunctionCall) throws(SQLFunctionError) -> SQLiteValue
    ) throws(SQLiteError) {
        let handle = connection.open("Database")
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let status = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0), box,
            { context, count, arguments in
                guard let context else { return }
                // The box lives as long as the registration, which outlives every call: no
                // retain and release per row.
                Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!)._withUnsafeGuaranteedRef { function in
                    let call = SQLFunctionCall(context: context, count: Int(count), arguments: arguments)
                    do throws(SQLFunctionError) {
                        call.setResult(try function.body(call))
                    } catch {
                        sqlite3_result_error(context, error.message, -1)
                    }
                }
            },
            nil, nil,
            { box in
                guard let box else { return }
                Unmanaged<FunctionBox>.fromOpaque(box).release()
            })
        guard status == SQLITE_OK else { throw SQLiteError.current(handle, code: status, sql: nil) }
    }
}

/// Holds a registered function's Swift body for SQLite's C callback.
private final class FunctionBox {
    let body: (SQLFunctionCall) throws(SQLFunctionError) -> SQLiteValue
    init(_ body: @escaping (SQLFunctionCall) throws(SQLFunctionError) -> SQLiteValue) { self.body = body }
}

/// A failure of an application-defined function: the statement fails with `message`.
public struct SQLFunctionError: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// One call of an application-defined function: its arguments, read on demand, and its
/// per-statement auxiliary data (<https://www.sqlite.org/c3ref/get_auxdata.html>).
///
/// Not Sendable and valid only during the call.
public struct SQLFunctionCall {
    let context: OpaquePointer
    /// The number of arguments.
    public let count: Int
    let arguments: UnsafeMutablePointer<OpaquePointer?>?

    init(context: OpaquePointer, count: Int, arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        self.context = context
        self.count = count
        self.arguments = arguments
    }

    private func value(_ index: Int) -> OpaquePointer? {
        precondition(index >= 0 && index < count, "SQL function argument \(index) of \(count)")
        return arguments?[index]
    }

    /// Whether argument `index` is NULL.
    public func isNull(_ index: Int) -> Bool {
        sqlite3_value_type(value(index)) == SQLITE_NULL
    }

    /// Argument `index` as an integer (NULL → 0; text and reals converted as SQLite does).
    public func integer(_ index: Int) -> Int64 {
        sqlite3_value_int64(value(index))
    }

    /// `body` on argument `index`'s UTF-8 bytes as SQLite holds them, without copying
    /// (NULL → nil; the buffer is valid only inside `body`).
    ///
    /// A text is read with `sqlite3_value_blob`, which gives its bytes where they are:
    /// `sqlite3_value_text` would first copy a column's text into a new allocation to end it
    /// with a NUL, once per call. This assumes the database's text encoding is UTF-8 (SQLite's
    /// default; Catbird never changes it). Numbers are converted to text as SQLite does.
    public func withTextBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let argument = value(index)
        switch sqlite3_value_type(argument) {
        case SQLITE_NULL:
            return nil
        case SQLITE_TEXT, SQLITE_BLOB:
            let bytes = sqlite3_value_blob(argument)
            let count = Int(sqlite3_value_bytes(argument))
            return body(UnsafeBufferPointer(start: bytes?.assumingMemoryBound(to: UInt8.self), count: bytes == nil ? 0 : count))
        default:
            guard let bytes = sqlite3_value_text(argument) else { return nil }
            return body(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(argument))))
        }
    }

    /// Argument `index` as text (NULL → nil), decoded from UTF-8 with invalid bytes replaced.
    public func text(_ index: Int) -> String? {
        let argument = value(index)
        guard sqlite3_value_type(argument) != SQLITE_NULL, let bytes = sqlite3_value_text(argument) else { return nil }
        let length = Int(sqlite3_value_bytes(argument))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    /// Argument `index` as bytes (NULL → nil).
    public func blob(_ index: Int) -> [UInt8]? {
        let argument = value(index)
        guard sqlite3_value_type(argument) != SQLITE_NULL else { return nil }
        let length = Int(sqlite3_value_bytes(argument))
        guard length > 0, let bytes = sqlite3_value_blob(argument) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// The object SQLite keeps for argument `index` (a constant or bound parameter) across the
    /// rows of one statement, made by `make` on first use; nil when `make` returns nil.
    public func auxiliary<T: AnyObject>(for index: Int, make: () -> T?) -> T? {
        if let stored = sqlite3_get_auxdata(context, Int32(index)) {
            return Unmanaged<AnyObject>.fromOpaque(stored)._withUnsafeGuaranteedRef { $0 as? T }
        }
        guard let made = make() else { return nil }
        // SQLite may call the destructor at once (then the next row makes it again).
        sqlite3_set_auxdata(context, Int32(index), Unmanaged<AnyObject>.passRetained(made).toOpaque()) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return made
    }

    func setResult(_ result: SQLiteValue) {
        switch result {
        case .null: sqlite3_result_null(context)
        case .integer(let value): sqlite3_result_int64(context, value)
        case .real(let value): sqlite3_result_double(context, value)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    catbird_sqlite3_result_text_transient(context, $0.baseAddress, Int32($0.count))
                }
            }
        case .blob(let bytes):
            bytes.withUnsafeBytes { catbird_sqlite3_result_blob_transient(context, $0.baseAddress, Int32($0.count)) }
        }
    }
}
