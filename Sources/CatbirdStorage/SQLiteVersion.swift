import CSQLite

/// The SQLite library this process links, checked before the database is first opened: the
/// journal's amendments use `UPDATE … RETURNING` (SQLite 3.35, 2021), which an older library
/// would refuse only when an answer is first cut short, long after start-up
/// (docs/schema.md; https://www.sqlite.org/lang_returning.html).
public enum SQLiteVersion {
    /// The oldest library the server runs on, as `sqlite3_libversion_number()` counts:
    /// 3.35.0 (`UPDATE … RETURNING`).
    public static let minimum: Int32 = 3_035_000

    /// Why the linked library cannot serve: its version and the one needed.
    public struct TooOld: Error, CustomStringConvertible, Sendable {
        /// The linked library's version, as `sqlite3_libversion()` says it (`3.31.1`).
        public let version: String

        /// The sentence `catbird` logs before it exits.
        public var description: String {
            "the SQLite library linked is \(version), but Catbird needs 3.35 or later (UPDATE … RETURNING); "
                + "install a newer libsqlite3 (Debian 12 has 3.40)"
        }
    }

    /// Checks the linked library against ``minimum``.
    /// - Throws: ``TooOld`` when it is older.
    public static func check() throws(TooOld) {
        try check(linked: sqlite3_libversion_number(), version: String(cString: sqlite3_libversion()))
    }

    /// Checks `linked` (a `sqlite3_libversion_number()`) against ``minimum``; `version` names it.
    /// - Throws: ``TooOld`` when it is older.
    static func check(linked: Int32, version: String) throws(TooOld) {
        guard linked >= minimum else { throw TooOld(version: version) }
    }
}
