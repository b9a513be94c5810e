import CatbirdDomain
import CatbirdStorage

/// What the routes work with; built once at start-up by ``CatbirdServer``.
struct Services: Sendable {
    let mocks: MockStore
    let journal: Journal
    let tenants: TenantDirectory
    /// The read-only connection for `/catbird/api/sql`.
    let reader: SerialDatabase
    let log: Logger
    let settings: CatbirdServer.Settings
}
