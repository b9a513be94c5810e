import CSQLite

extension Migrator {
    /// The tables a migration changed, as SQLite's authorizer reports them while the
    /// migration's statements are prepared (<https://www.sqlite.org/c3ref/set_authorizer.html>):
    /// rows inserted, updated or deleted, tables created, altered or dropped, and the table of
    /// an index dropped (the index may be the unique one a child's foreign key needs, whose
    /// loss `PRAGMA foreign_key_check` reports as "foreign key mismatch"). SQLite's own
    /// tables (`sqlite_*`, written by any schema change) are left out; a write to the schema
    /// itself (`PRAGMA writable_schema`) makes the change unknown.
    final class ChangedTables {
        /// Names as SQLite reported them (compared case-insensitively, as SQLite does).
        private(set) var names: Set<String> = []
        /// Tables altered (renamed or given a column): one renamed away leaves a name that no
        /// longer exists, so the check cannot know the new one.
        private(set) var altered: Set<String> = []
        private(set) var schemaWritten = false

        fileprivate func note(_ action: Int32, _ detail1: UnsafePointer<CChar>?, _ detail2: UnsafePointer<CChar>?) {
            if action == SQLITE_PRAGMA, let detail1, String(cString: detail1).lowercased() == "writable_schema" { schemaWritten = true }
            let table: UnsafePointer<CChar>? = switch action {
            case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_CREATE_TABLE, SQLITE_DROP_TABLE: detail1
            case SQLITE_ALTER_TABLE: detail2  // detail1 is the database's name
            case SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX: detail2  // detail1 is the index's name
            default: nil
            }
            guard let table else { return }
            let name = String(cString: table).lowercased()
            guard !name.hasPrefix("sqlite_") else { return }
            names.insert(name)
            if action == SQLITE_ALTER_TABLE { altered.insert(name) }
        }
    }

    /// Runs `sql` on `db` and returns the tables it changed (``ChangedTables``).
    static func executeNotingChanges(_ db: Database, _ sql: String) throws -> ChangedTables {
        let changed = ChangedTables()
        let handle = db.connection.open("Database")
        sqlite3_set_authorizer(handle, { context, action, detail1, detail2, _, _ in
            Unmanaged<ChangedTables>.fromOpaque(context!).takeUnretainedValue().note(action, detail1, detail2)
            return SQLITE_OK
        }, Unmanaged.passUnretained(changed).toOpaque())
        defer { sqlite3_set_authorizer(handle, nil, nil) }
        try withExtendedLifetime(changed) { try db.execute(sql) }
        return changed
    }

    /// The foreign key violations a migration that changed `changed` may have left: `PRAGMA
    /// foreign_key_check` (<https://www.sqlite.org/pragma.html#pragma_foreign_key_check>) on
    /// each changed table that still exists and on every table whose foreign keys refer to a
    /// changed one (a parent's rows deleted or its table dropped); on every table when the
    /// change is unknown (the schema written directly, or a table altered away). A migration
    /// that only builds indexes checks nothing, instead of reading every row of a large
    /// journal; one that drops an index checks that index's table and its children (a
    /// parent's unique index gone makes the children's check fail with "foreign key
    /// mismatch"). Each row: table, rowid, parent, foreign key index.
    static func foreignKeyViolations(_ db: Database, after changed: ChangedTables) throws -> [Row] {
        guard !changed.names.isEmpty else { return [] }
        let tables = try db.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { $0[0].stringValue }
        let existing = Set(tables.map { $0.lowercased() })
        if changed.schemaWritten || !changed.altered.isSubset(of: existing) { return try db.query("PRAGMA foreign_key_check") }
        var checked: [String] = []
        for table in tables {
            let parents = try db.query("SELECT \"table\" FROM pragma_foreign_key_list(?)", [.text(table)])
                .compactMap { $0[0].stringValue?.lowercased() }
            if changed.names.contains(table.lowercased()) || parents.contains(where: changed.names.contains) { checked.append(table) }
        }
        var violations: [Row] = []
        for table in checked {
            violations += try db.query("PRAGMA foreign_key_check(\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\")")
        }
        return violations
    }
}
