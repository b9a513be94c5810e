import CatbirdStorage
import CatbirdSupport

extension ReadOnlyQueryError: HTTPResponseError {
    /// 400 for a refused or stopped query (the statement is at fault); 503 when SQLite failed
    /// for a reason of its environment (``CatbirdStorage/SQLiteError/isEnvironmental``: busy,
    /// full, read-only, corrupt, I/O), which no change to the statement would fix.
    public var status: Int {
        if case .sqlite(let error) = self, error.isEnvironmental { return 503 }
        return 400
    }

    /// ``description``, or the environmental failure in a user's words for a 503.
    public var reason: String {
        if case .sqlite(let error) = self, let reason = error.environmentalReason { return reason }
        return description
    }
}
