/// An SQL text whose hash is worked out once, when it is made: the key of a connection's
/// prepared statements (`Database.statement(_:)`).
///
/// A `String` key is hashed whole on every lookup: the journal writer's 32-row `INSERT` (2,525
/// characters) was hashed once per statement it ran. A text kept in a `static let` and
/// looked up through this type costs one integer hash and, on a hit, a comparison that the
/// strings' shared storage makes constant-time.
public struct StatementText: Hashable, Sendable {
    /// The SQL.
    public let sql: String
    /// `sql`'s hash, worked out in `init`.
    private let sqlHash: Int

    public init(_ sql: String) {
        self.sql = sql
        sqlHash = sql.hashValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sqlHash)
    }

    public static func == (lhs: StatementText, rhs: StatementText) -> Bool {
        lhs.sqlHash == rhs.sqlHash && lhs.sql == rhs.sql
    }
}
