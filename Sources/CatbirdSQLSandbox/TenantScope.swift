import CatbirdStorage
/// What a `TenantScopedReader` confines to one tenant: the tables holding tenants' rows, each
/// with its tenant column, the tables every tenant may read whole, and the name of the SQL
/// function that returns the tenant of the running query.
///
/// ```swift
/// let scope = TenantScope(
///     tables: [.init("requests", tenantColumn: "tenant"), .init("tenants", tenantColumn: "id")],
///     sharedTables: ["schema_migrations"],
///     tenantFunction: "catbird_tenant")
/// ```
///
/// Every other table of the `main` schema is refused to tenant-scoped queries, so a table added
/// later stays private until it is listed here.
public struct TenantScope: Sendable, Equatable {
    /// A table of `main` whose rows each belong to one tenant.
    public struct Table: Sendable, Equatable {
        /// The table's name, also the name of the temp view that shows one tenant's rows.
        public let name: String
        /// The column holding the row's tenant, compared with `=` to the tenant value.
        public let tenantColumn: String
        /// A further SQL condition on the table's columns a row must meet to show (e.g.
        /// `id > catbird_journal_floor(catbird_tenant())` for rows being deleted); nil: none.
        public let visibleRows: String?
        /// When `name` is a view of `main` rather than a table: the `main` tables it reads (e.g.
        /// `journal_rows` and `journal_bodies` behind the view `requests`). They are read only
        /// through the scoped view; a query naming them itself is refused like any other table.
        public let storedIn: [String]

        public init(_ name: String, tenantColumn: String, visibleRows: String? = nil, storedIn: [String] = []) {
            self.name = name
            self.tenantColumn = tenantColumn
            self.visibleRows = visibleRows
            self.storedIn = storedIn
        }
    }

    /// The scoped tables, at least one; names are distinct ignoring ASCII case.
    public let tables: [Table]
    /// Tables of `main` holding no tenant's data (e.g. `schema_migrations`), readable whole.
    /// The schema table (`sqlite_schema`) is always readable.
    public let sharedTables: [String]
    /// The SQL function of no arguments returning the running query's tenant as text
    /// (`NULL` between queries); a plain identifier: ASCII letters, digits and `_`, not
    /// starting with a digit.
    public let tenantFunction: String
    /// SQL functions only the scoped views may call (e.g. `catbird_journal_floor`, behind
    /// `requests`' `visibleRows`): a query calling one itself is refused, since its argument
    /// could name another tenant (try6b finding 1). Lowercase plain identifiers.
    public let viewOnlyFunctions: [String]

    /// A scope. Empty `tables`, duplicate table names, or a `tenantFunction` that is not a plain
    /// identifier are programmer errors and trap.
    public init(tables: [Table], sharedTables: [String] = [], tenantFunction: String, viewOnlyFunctions: [String] = []) {
        precondition(!tables.isEmpty, "a tenant scope needs at least one table")
        let names = tables.map { TenantReadPolicy.folded($0.name) }
        precondition(Set(names).count == names.count, "duplicate table in tenant scope: \(tables.map(\.name))")
        precondition(Self.isPlainIdentifier(tenantFunction), "not a plain SQL identifier: \(tenantFunction)")
        self.tables = tables
        self.sharedTables = sharedTables
        self.tenantFunction = tenantFunction
        self.viewOnlyFunctions = viewOnlyFunctions
    }

    private static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}
