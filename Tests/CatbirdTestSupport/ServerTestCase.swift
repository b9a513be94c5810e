import XCTest

/// Base class for suites whose every test talks to its own fresh server on loopback (a real
/// SQLite file in a temporary directory): `server` and `client` are ready in each test and
/// the files are removed afterwards.
open class ServerTestCase: XCTestCase {
    /// This test's server, started on a free port.
    public private(set) var server: TestServer!
    /// A client connected to ``server``.
    public private(set) var client: RawHTTPClient!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer()
        client = try server.client()
    }

    override open func tearDown() {
        client = nil
        server?.removeFiles()
        server = nil
        super.tearDown()
    }
}
