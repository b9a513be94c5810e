import Foundation

extension Catbird {
    /// The names under which a UI test hands the server URL and parallel id to the app under
    /// test. The app-side helper, `CatbirdAppSupport`'s `CatbirdAppConfiguration`, reads the
    /// same names.
    public enum LaunchKeys {
        /// The launch argument followed by the server URL: `-catbird_url http://127.0.0.1:8080`.
        public static let urlArgument = "-catbird_url"
        /// The launch argument followed by the parallel id: `-catbird_parallel_id shard-1`.
        public static let parallelIdArgument = "-catbird_parallel_id"
        /// The environment variable holding the server URL.
        public static let urlEnvironment = "CATBIRD_URL"
        /// The environment variable holding the parallel id.
        public static let parallelIdEnvironment = "CATBIRD_PARALLEL_ID"
    }

    /// Launch arguments that point the app under test at this server and tenant:
    /// `["-catbird_url", url.absoluteString]`, plus `["-catbird_parallel_id", parallelId]` when
    /// ``parallelId`` is set and not empty.
    ///
    /// ```swift
    /// app.launchArguments += catbird.launchArguments   // XCUIApplication
    /// ```
    @_disfavoredOverload
    public var launchArguments: [String] {
        var arguments = [LaunchKeys.urlArgument, url.absoluteString]
        if let parallelId = launchParallelId { arguments += [LaunchKeys.parallelIdArgument, parallelId] }
        return arguments
    }

    /// Environment variables that point the app under test at this server and tenant:
    /// `CATBIRD_URL`, plus `CATBIRD_PARALLEL_ID` when ``parallelId`` is set and not empty.
    ///
    /// ```swift
    /// app.launchEnvironment.merge(catbird.launchEnvironment) { $1 }   // XCUIApplication
    /// ```
    @_disfavoredOverload
    public var launchEnvironment: [String: String] {
        var environment = [LaunchKeys.urlEnvironment: url.absoluteString]
        environment[LaunchKeys.parallelIdEnvironment] = launchParallelId
        return environment
    }

    /// The parallel id to hand over; nil for the default tenant (an empty id means it too).
    private var launchParallelId: String? {
        guard let parallelId, !parallelId.isEmpty else { return nil }
        return parallelId
    }
}
