import CSQLite

/// The outcome of compiling the first statement of an SQL text.
package enum Preparation {
    /// The text held only whitespace, comments and semicolons.
    case empty
    /// A compiled statement (to be finalized by its owner), and the first character of what
    /// follows it besides whitespace, comments and semicolons (nil: nothing does).
    case statement(OpaquePointer, trailing: Unicode.Scalar?)

    /// Compiles the first statement of `sql` with `sqlite3_prepare_v3`
    /// (<https://www.sqlite.org/c3ref/prepare.html>); `flags` are `SQLITE_PREPARE_*` flags.
    ///
    /// - Throws: `SQLiteError` for a syntax error, an unknown table or column, or a denial by
    ///   an authorizer (`SQLITE_AUTH`).
    package static func prepare(_ connection: OpaquePointer, _ sql: String, flags: UInt32) throws(SQLiteError) -> Preparation {
        var statement: OpaquePointer?
        var trailing: Unicode.Scalar?
        let status = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let status = sqlite3_prepare_v3(connection, text, -1, flags, &statement, &tail)
            if status == SQLITE_OK, let tail {
                trailing = firstStatementScalar(tail)
            }
            return status
        }
        guard status == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw SQLiteError.current(connection, code: status, sql: sql)
        }
        guard let statement else { return .empty }
        return .statement(statement, trailing: trailing)
    }

    /// The first character of the NUL-terminated `text` past whitespace, `-- line` and
    /// `/* block */` comments (an unterminated block comment runs to the end, as in SQLite) and
    /// semicolons; nil when nothing else is left. A byte that does not start UTF-8 is U+FFFD.
    static func firstStatementScalar(_ text: UnsafePointer<CChar>) -> Unicode.Scalar? {
        let start = skippingBlanks(UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self))
        guard start[0] != 0 else { return nil }
        var length = 1
        while length < 4, start[length] != 0, start[length] & 0xC0 == 0x80 { length += 1 }
        return String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self).unicodeScalars.first
    }

    /// The first word of `sql`'s first statement, upper-cased (ASCII letters and `_` only): `SELECT`,
    /// `WITH`, `VACUUM`; "" when it starts with something else. Whitespace, comments and
    /// semicolons before it are skipped as ``containsStatement(_:)`` skips them.
    /// A byte order mark at the very start is skipped first, as SQLite's compiler skips it
    /// (tester finding tester39a-F10: `\u{FEFF}SELECT 1` ran before the first word was checked,
    /// and was then refused as not read-only).
    package static func firstWord(of sql: String) -> String {
        sql.withCString { text in
            var start = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
            if start[0] == 0xEF, start[1] == 0xBB, start[2] == 0xBF { start += 3 }
            var cursor = skippingBlanks(start)
            var word: [UInt8] = []
            while word.count < 16, cursor[0] == UInt8(ascii: "_") || (cursor[0] | 0x20 >= UInt8(ascii: "a") && cursor[0] | 0x20 <= UInt8(ascii: "z")) {
                word.append(cursor[0] == UInt8(ascii: "_") ? cursor[0] : cursor[0] & ~0x20)
                cursor += 1
            }
            return String(decoding: word, as: UTF8.self)
        }
    }

    /// `cursor` moved past whitespace, `-- line` and `/* block */` comments and semicolons,
    /// to the first byte of a statement or the text's NUL.
    private static func skippingBlanks(_ start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var cursor = start
        while true {
            switch cursor[0] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                 0x0C, UInt8(ascii: ";"):
                cursor += 1
            case UInt8(ascii: "-") where cursor[1] == UInt8(ascii: "-"):
                while cursor[0] != 0 && cursor[0] != UInt8(ascii: "\n") { cursor += 1 }
            case UInt8(ascii: "/") where cursor[1] == UInt8(ascii: "*"):
                cursor += 2
                while cursor[0] != 0 && !(cursor[0] == UInt8(ascii: "*") && cursor[1] == UInt8(ascii: "/")) {
                    cursor += 1
                }
                if cursor[0] != 0 { cursor += 2 }
            default:
                return cursor
            }
        }
    }
}
