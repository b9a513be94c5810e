/// An error that knows the HTTP answer it stands for (the shape of Hummingbird's
/// `HTTPResponseError`): the server's router turns any such error into `status` with the body
/// `{"error": true, "reason": reason}` (docs/protocol.md#errors), in one place. Errors that do
/// not adopt it are answered 500 with a reason that leaks nothing, and logged.
public protocol HTTPResponseError: Error {
    /// The HTTP status: 4xx when the request is at fault, 5xx when the server is (503 while
    /// the database is busy, full, read-only or failing).
    var status: Int { get }

    /// One sentence for the user, naming what was wrong in the request's own terms (a field,
    /// a parameter, a pattern), never a Swift debug description.
    var reason: String { get }
}

/// A 5xx that says the server is busy, not broken: a wait for a shared resource (an SQL
/// connection, the journal writer) ran past its bound, and retrying later helps. Load, not a
/// fault: logged as a warning, as the 429s of a tenant over its share are, never as an error
/// (an error-level line is a fault someone must look at).
public protocol ServerBusyError: HTTPResponseError {}
