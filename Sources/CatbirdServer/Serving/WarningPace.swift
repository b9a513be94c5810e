import Synchronization

/// Lets one warning of a kind through per ``interval`` and counts the ones it holds back, for
/// warnings that can come once per request on the workers: the default tenant's mocks marked
/// slow skipped for other tenants' requests (tester finding try9b F7: thousands a second in a
/// fleet whose shards' unmatched requests all reach the default tenant's table).
final class WarningPace: Sendable {
    /// One warning per second.
    static let interval = Duration.seconds(1)

    private struct State {
        var next: ContinuousClock.Instant?
        var withheld = 0
    }

    private let state = Mutex(State())

    /// Whether a warning may be logged now: nil to hold it back (counted), else how many were
    /// held back since the last one logged.
    func admit() -> Int? {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let next = state.next, now < next {
                state.withheld += 1
                return nil
            }
            defer { state = State(next: now.advanced(by: Self.interval), withheld: 0) }
            return state.withheld
        }
    }
}
