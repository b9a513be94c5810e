/// Start-up was given up because a termination signal came (``CatbirdServer/init(settings:isStopping:)``'s
/// `isStopping`) during work that can take long: the sweep of a large mocks directory
/// (`--mocks-dir /`, docs/files.md#recording). Nothing was served; the caller exits.
public struct StartupStopped: Error, CustomStringConvertible {
    /// What was given up, e.g. `the sweep of '/' for recordings' temporary files was cut short after 120000 entries`.
    public let description: String
}
