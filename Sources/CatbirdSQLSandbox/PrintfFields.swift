import CSQLite

/// The check of SQLite's `printf` and `format` calls on a user-SQL connection
/// (``CheckedFunction``): their widths and precisions bounded by the connection's length limit.
///
/// Why: in SQLite 3.40 a `%c` conversion with a precision appends its character one call at a
/// time, and keeps looping after the length limit has failed the result, so
/// `printf('%.*c', 2000000000, 'x')` spins two billion times (10–15 s measured, 70 s on a
/// loaded machine) inside one function call, where neither the progress handler nor
/// `sqlite3_interrupt` is ever consulted. The check reads the format the way SQLite's printf
/// does (<https://www.sqlite.org/printf.html>: flags, width or `*`, `.` precision or `.*`) and
/// refuses the call as `SQLITE_TOOBIG` when any width or precision, after SQLite's own
/// normalisation (31-bit mask, absolute value of a negative `*` argument), exceeds the length
/// limit: such a result could never be built anyway.
enum PrintfFields {
    /// `.tooBig` when a field of the call's format (its first argument) is wider than
    /// `valueLimit` bytes; nil otherwise (no format, or a NULL one, included).
    static func check(_ arguments: UnsafeBufferPointer<OpaquePointer?>, valueLimit: Int) -> FunctionRefusal? {
        guard let first = arguments.first, let format = sqlite3_value_text(first) else { return nil }
        let bytes = UnsafeBufferPointer(start: format, count: Int(sqlite3_value_bytes(first)))
        let widest = widestField(format: bytes) { index in
            index < arguments.count ? sqlite3_value_int64(arguments[index]) : 0
        }
        return widest > valueLimit ? .tooBig : nil
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
