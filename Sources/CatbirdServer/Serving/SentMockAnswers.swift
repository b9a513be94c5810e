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
/// old answer). Bounded: when ``capacity`` mocks are remembered and another one is asked for,
/// all are forgotten (an entry is only good for its second anyway).
final class SentMockAnswers: Sendable {
    /// Mocks remembered at most: 1,024.
    static let capacity = 1024
    /// Mock id → the second's HTTP-date (``HTTPDate/now()``) and the response sent in it.
    private let answers = Mutex<[Int64: (date: String, response: HTTPResponse)]>([:])

    /// `mock`'s response as sent now: the one remembered in the current second (by the clock's
    /// HTTP-date, whatever `Date` the mock sets itself), else `response` stamped and prepared
    /// (and remembered).
    /// - Parameter response: the mock's response as served (no delay, no CORS fields).
    func sent(_ response: HTTPResponse, of mock: Mock) -> HTTPResponse {
        let now = HTTPDate.now()
        if let remembered = answers.withLock({ $0[mock.id] }), remembered.date == now { return remembered.response }
        let made = response.stamped(date: now).prepared()
        answers.withLock { answers in
            if answers.count >= Self.capacity && answers[mock.id] == nil { answers.removeAll(keepingCapacity: true) }
            answers[mock.id] = (now, made)
        }
        return made
    }
}
