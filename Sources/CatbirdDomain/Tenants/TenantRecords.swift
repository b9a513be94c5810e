import CatbirdStorage
import CatbirdSupport

/// The SQL for the `tenants` table (schema: migrations/0001_initial.sql).
enum TenantRecords {
    /// Creates the tenant's row if missing and sets its last activity to now.
    static func touch(_ db: Database, tenant: TenantID, at time: String = Timestamp.now()) throws {
        try db.run("""
            INSERT INTO tenants (id, created_at, last_activity_at) VALUES (?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET last_activity_at = excluded.last_activity_at
            WHERE excluded.last_activity_at > tenants.last_activity_at
            """, [.text(tenant.rawValue), .text(time), .text(time)])
    }
}
