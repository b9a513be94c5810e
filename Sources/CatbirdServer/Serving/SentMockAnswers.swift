import CatbirdDomain
import CatbirdHTTP
import Synchronization

/// Each mock's response as it goes out in the current second: its fields with `Date`
/// stamped (``HTTPResponse/stamped(date:)``) and its libmicrohttpd form made once
/// (``HTTPResponse/prepared()``). Every hit on a mock within one second sends the same bytes,
/// so the hits of that second share one response instead of each stamping its fields and
/// copying its body and fields into a new libmicrohttpd response.
///
/// Keyed by mock id (a mock replaced in place gets a new id, so a changed mock never meets its
/// old answer). Only the current second's answers are kept: the first hit of a new second
/// drops all of the previous second's, so a removed mock's response is not kept past it.
final class SentMockAnswers: Sendable {
    /// The second's HTTP-date (``HTTPDate/now()``) and, by mock id, the responses sent in it.
    private let current = Mutex<(date: String, byMockID: [Int64: HTTPResponse])>(("", [:]))

    /// `mock`'s response as sent now: the one made earlier in the current second (by the
    /// clock's HTTP-date, whatever `Date` the mock sets itself), else `response` stamped and
    /// prepared (and kept for the rest of the second).
    /// - Parameter response: the mock's response as served (no delay, no CORS fields).
    func sent(_ response: HTTPResponse, of mock: Mock) -> HTTPResponse {
        let now = HTTPDate.now()
        if let made = current.withLock({ $0.date == now ? $0.byMockID[mock.id] : nil }) { return made }
        let made = response.stamped(date: now).prepared()
        current.withLock { current in
            if current.date != now { current = (now, [:]) }
            current.byMockID[mock.id] = made
        }
        return made
    }
}
