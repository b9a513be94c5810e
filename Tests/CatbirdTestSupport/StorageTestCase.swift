import CatbirdDomain
import CatbirdStorage
import Foundation
import XCTest

/// Base class: each test gets a fresh temporary directory for its database files, removed in
/// tearDown. Real SQLite files, no mocks.
open class StorageTestCase: XCTestCase {
    public private(set) var directory: URL!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CatbirdStorageTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws {
        if let directory {
            try FileManager.default.removeItem(at: directory)
        }
        directory = nil
        try super.tearDownWithError()
    }

    /// Path of a database file in this test's directory.
    public func databasePath(_ name: String = "catbird.sqlite") -> String {
        directory.appendingPathComponent(name).path
    }

    /// A read-write connection to a freshly created file migrated with Catbird's schema
    /// (``Schema/migrations``, a realistic fixture for the SQLite layer's tests).
    public func openMigrated(_ name: String = "catbird.sqlite") throws -> Database {
        let db = try Database(path: databasePath(name))
        XCTAssertEqual(try Schema.migrate(db), Schema.migrations.map(\.version))
        return db
    }

    /// A mock store over the database file `name` of this test's directory, migrated with
    /// Catbird's schema first (a file already migrated is taken as it is, so a second store
    /// over it loads what the first stored: a restart); `prepare` may write rows into it
    /// before the store loads them.
    public func mockStore(
        _ name: String = "catbird.sqlite", limits: TenantMockLimits = TenantMockLimits(),
        prepare: (Database) throws -> Void = { _ in }
    ) throws -> MockStore {
        let connection = try Database(path: databasePath(name), mode: .readWrite)
        _ = try Schema.migrate(connection)
        try prepare(connection)
        return try MockStore(database: SerialDatabase(connection), limits: limits)
    }

    /// Every `CREATE` statement of the schema, by object name, from `sqlite_master`.
    public func schemaSnapshot(_ db: Database) throws -> [String: String] {
        var schema: [String: String] = [:]
        for row in try db.query("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL") {
            schema[row["name"].stringValue ?? "?"] = row["sql"].stringValue
        }
        return schema
    }

    /// The single value of a one-row, one-column query.
    public func scalar(_ db: Database, _ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteValue {
        let rows = try db.query(sql, bindings)
        XCTAssertEqual(rows.count, 1, sql)
        return rows.first?.values.first ?? .null
    }
}
