import CatbirdTestSupport
import Foundation

extension E2E {
    /// Runs `catbird --port <a free port> --db <database>` in `directory` and waits for it to
    /// exit (30 s at most): for a start that is refused (exit 3 for a file that cannot be used).
    static func startOnce(database: String, in directory: URL) throws -> ProcessRunner.Result {
        try ProcessRunner.run(
            try BuiltProducts.executable(named: "catbird"), ["--port", "\(try FreePort.next())", "--db", database],
            in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
    }
}
