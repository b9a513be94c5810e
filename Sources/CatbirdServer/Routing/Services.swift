import CatbirdDomain
import CatbirdStorage

/// What the routes work with; built once at start-up by ``CatbirdServer``.
struct Services: Sendable {
    let mocks: MockStore
    let journal: Journal
    let tenants: TenantDirectory
    /// The read-only connection for the server's own queries (journal, tenants, health): it
    /// sees every tenant's rows.
    let reader: SerialDatabase
    /// The connections for `/catbird/api/sql`, where user SQL sees the caller's tenant only.
    let sqlReader: TenantScopedReader
    let log: Logger
    let settings: CatbirdServer.Settings
}
