import CatbirdStorage

extension Schema {
    /// What ``migrations`` make and `db` lacks, each as `table journal_deletions`, `view
    /// requests`, `index …`, `trigger …` or `column requests.tenant`, in that order of kinds and
    /// by name; `[]` when `db` has it all. The reference is ``migrations`` applied to a private
    /// in-memory database (a few milliseconds). For a file whose `schema_migrations` says it is
    /// up to date but whose schema was changed outside Catbird (tester finding tester29b-F4: a
    /// dropped table or view made the start fail with exit 1 and a raw SQLite error, so a
    /// supervisor restarted it in a loop). Extra objects (an index someone added) are not named.
    /// - Throws: `SQLiteError` when `db` cannot be read; `MigrationError` should a migration
    ///   fail on the in-memory reference.
    public static func missingObjects(in db: Database) throws -> [String] {
        let reference = try Database(path: ":memory:", mode: .readWrite)
        defer { reference.close() }
        try migrate(reference)
        let found = Set(try objects(of: db))
        return try objects(of: reference).filter { !found.contains($0) }
    }

    /// Every table, view, index and trigger of `db` (SQLite's own left out) and the columns of
    /// its tables and views, as ``missingObjects(in:)`` names them.
    private static func objects(of db: Database) throws -> [String] {
        let kinds = ["table", "view", "index", "trigger"]
        var objects: [String] = []
        var columns: [String] = []
        let rows = try db.query("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        for kind in kinds {
            for row in rows where row[0].stringValue == kind {
                let name = row[1].stringValue ?? ""
                objects.append("\(kind) \(name)")
                guard kind == "table" || kind == "view" else { continue }
                // A view whose table is gone cannot be read (`no such table`): it has no columns then.
                for column in (try? db.query("SELECT name FROM pragma_table_info(?)", [.text(name)])) ?? [] {
                    columns.append("column \(name).\(column[0].stringValue ?? "")")
                }
            }
        }
        return objects + columns
    }
}
