import CSQLite

/// The `sqlite3*` handle shared by a `Database` and the statements it prepared, so that a
/// statement can tell that its database was closed (and trap) instead of using a freed handle.
///
/// Not Sendable: it is only touched through its non-Sendable owners, under their serialisation.
package final class Connection {
    /// The open handle; `nil` once `Database.close()` ran.
    private(set) var handle: OpaquePointer?

    package init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// The open handle; traps with `what` when the database was closed (a programmer error).
    package func open(_ what: @autoclosure () -> String) -> OpaquePointer {
        guard let handle else {
            preconditionFailure("\(what()) used after its Database was closed")
        }
        return handle
    }

    /// Closes with `sqlite3_close_v2` (<https://www.sqlite.org/c3ref/close.html>): if statements
    /// are still alive the connection lingers as a "zombie" and is freed when the last of them is
    /// finalized. Idempotent.
    func close() {
        guard let handle else { return }
        self.handle = nil
        sqlite3_close_v2(handle)
    }
}
