import CSQLite
import CatbirdSupport

/// A failure reported by SQLite, or by this wrapper where it enforces SQLite's rules.
///
/// `code` is the primary result code (`SQLITE_CONSTRAINT` = 19, `SQLITE_BUSY` = 5, …) and
/// `extendedCode` the extended one (`SQLITE_CONSTRAINT_UNIQUE` = 2067); both are listed at
/// <https://www.sqlite.org/rescode.html>. `message` is SQLite's English text from
/// `sqlite3_errmsg` (<https://www.sqlite.org/c3ref/errcode.html>) and `sql` the statement
/// being prepared or run, when there was one.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary result code: `extendedCode & 0xFF`.
    public let code: Int32
    /// The extended result code; equals `code` when SQLite gave no extended detail.
    public let extendedCode: Int32
    /// SQLite's message, e.g. `UNIQUE constraint failed: tenants.id`.
    public let message: String
    /// The SQL text involved, if any.
    public let sql: String?

    /// Makes an error from a (primary or extended) result code; `code` keeps its low byte.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code & 0xFF
        self.extendedCode = code
        self.message = message
        self.sql = sql
    }

    /// Whether the failure comes from the database's environment rather than from the
    /// statement: busy or locked by another connection, out of memory, read-only, a disk I/O
    /// error, a corrupt file or not a database, a full disk, a file that cannot be opened, or
    /// a permission denied (<https://www.sqlite.org/rescode.html>). Retrying later, or fixing
    /// the machine, may help; changing the statement will not.
    public var isEnvironmental: Bool {
        switch code {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB,
            SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_PERM:
            return true
        default:
            return false
        }
    }

    /// Whether a write that failed so is worth trying again later rather than giving up: the
    /// file is busy or locked by another connection (`SQLITE_BUSY`, `SQLITE_LOCKED`), the disk
    /// is full (`SQLITE_FULL`, or no room to grow the WAL index: `SQLITE_IOERR_SHMSIZE`), or the
    /// operating system refused a read or write (`SQLITE_IOERR` and its extended codes: a file
    /// made immutable, a file system remounted read-only, a file-size limit reached, EIO); each
    /// can pass without the server doing anything (the journal writer's rounds: T16-F1, T16-F2;
    /// T18B-F3: a write error dropped answered requests' rows after 0.3 s while health said they
    /// stayed queued).
    public var isTransient: Bool {
        switch code {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL, SQLITE_IOERR: return true
        default: return false
        }
    }

    /// Whether the failure is a full disk (`SQLITE_FULL`, or the WAL index that could not grow).
    public var isDiskFull: Bool { code == SQLITE_FULL || extendedCode == SQLITE_IOERR | (19 << 8) }

    /// What an environmental failure (``isEnvironmental``) means for a user, in a few words
    /// (`the database is busy`); nil for other failures.
    public var environmentalReason: String? {
        // SQLITE_IOERR_SHMSIZE: the WAL index (`-shm`) could not be grown, which on a full disk
        // is what opening an up-to-date WAL file meets first (try6a F5: it read "disk I/O error").
        if extendedCode == SQLITE_IOERR | (19 << 8) {
            return "the disk holding the database is full (no room for its WAL index, the -shm file)"
        }
        // SQLITE_READONLY_DBMOVED, as DatabaseFileLock.moved() makes it: the message says what happened.
        if extendedCode == SQLITE_READONLY | (4 << 8) {
            return "the database file was deleted or replaced under the running server: \(message); nothing written now "
                + "would be kept (put the file back, or restart the server to start a new one)"
        }
        // DatabaseFileLock.truncated()'s: the message says what the file is and what it had (tester21b-F13).
        if extendedCode == DatabaseFileLock.truncatedCode {
            return "the database file was truncated under the running server: \(message); the file is corrupt from then on "
                + "and nothing written now would be kept (stop the server, which then keeps its -wal beside the file, "
                + "and restore a copy of the file)"
        }
        switch code {
        case SQLITE_BUSY, SQLITE_LOCKED: return "the database is busy (locked by another connection); try again"
        case SQLITE_NOMEM: return "the database ran out of memory"
        case SQLITE_READONLY, SQLITE_PERM: return "the database file cannot be written (read-only or permission denied)"
        case SQLITE_IOERR: return "the database file could not be read or written (disk I/O error)"
        case SQLITE_CORRUPT, SQLITE_NOTADB: return "the database file is corrupt"
        case SQLITE_FULL: return "the disk holding the database is full"
        case SQLITE_CANTOPEN: return "the database file cannot be opened"
        default: return nil
        }
    }

    /// One line: `SQLite error 19 (constraint): UNIQUE constraint failed: t.x — in: INSERT …`.
    /// Runs of whitespace are collapsed to one space; a message longer than 200 UTF-8 bytes and
    /// SQL longer than 300 are cut with `…` (a message echoes the statement's identifiers:
    /// `no such column: xyyy…` of a 10 MB name made a 10 MB error reason, try6b finding 10).
    public var description: String {
        var line = "SQLite error \(code) (\(Self.name(ofPrimaryCode: code))): \(Self.oneLine(message, limit: 200))"
        if let sql {
            line += " — in: " + Self.oneLine(sql, limit: 300)
        }
        return line
    }

    /// The lowercase name of a primary result code without its `SQLITE_` prefix (`constraint`
    /// for 19), or `code N` for a number SQLite does not define.
    public static func name(ofPrimaryCode code: Int32) -> String {
        let names = [
            "ok", "error", "internal", "perm", "abort", "busy", "locked", "nomem", "readonly",
            "interrupt", "ioerr", "corrupt", "notfound", "full", "cantopen", "protocol", "empty",
            "schema", "toobig", "constraint", "mismatch", "misuse", "nolfs", "auth", "format",
            "range", "notadb", "notice", "warning",
        ]
        switch code {
        case 0..<Int32(names.count): return names[Int(code)]
        case SQLITE_ROW: return "row"
        case SQLITE_DONE: return "done"
        default: return "code \(code)"
        }
    }

    /// The connection's current error (`sqlite3_extended_errcode` and `sqlite3_errmsg`),
    /// falling back to `code` and `sqlite3_errstr` when there is no connection.
    package static func current(_ connection: OpaquePointer?, code: Int32, sql: String?) -> SQLiteError {
        guard let connection else {
            return SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), sql: sql)
        }
        let extended = sqlite3_extended_errcode(connection)
        // Trust the connection's code only when it agrees with the failing call's.
        let best = (extended & 0xFF) == (code & 0xFF) ? extended : code
        return SQLiteError(code: best, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    /// `text` on one line: runs of ASCII whitespace become one space, and a character that
    /// looks blank but is not white space to SQLite (``looksBlank(_:)``) is written `<U+00A0>`,
    /// so that the statement a syntax error quotes shows what SQLite read (tester finding
    /// tester39a-F10: `near " SELECT": syntax error — in: SELECT 1` hid a no-break space); cut
    /// with `…` after `limit` UTF-8 bytes, between code points (counted by code point, not
    /// `Character`: one character can be any number of combining marks, try7b F10).
    private static func oneLine(_ text: String, limit: Int) -> String {
        var result = String.UnicodeScalarView()
        var bytes = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.properties.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            let shown = looksBlank(scalar) ? "<\(scalar.codePointText)>" : String(scalar)
            let added = (pendingSpace ? 1 : 0) + shown.utf8.count
            if bytes + added > limit { return String(result) + "…" }
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            result.append(contentsOf: shown.unicodeScalars)
            bytes += added
        }
        return String(result)
    }

    /// Whether `scalar` is not ASCII and looks blank, white space or invisible (a no-break
    /// space, U+2028, a zero-width space, a byte order mark), which SQLite's tokenizer does not
    /// read as white space: it takes only ASCII space, tab, line feed, form feed and carriage return.
    public static func looksBlank(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII && (scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint)
    }
}
