import CatbirdDomain
import CatbirdHTTP
import Synchronization

/// Each mock's answer as it goes out in the current second: its response with `Date` stamped
/// (``HTTPResponse/stamped(date:)``) and its libmicrohttpd form made once
/// (``HTTPResponse/prepared()``), and the response's header fields as journaled. Every hit on a
/// mock within one second sends the same bytes, so the hits of that second share one answer
/// instead of each building the response, stamping its fields, copying its body and fields into
/// a new libmicrohttpd response and writing the journal's header JSON.
///
/// Keyed by mock id (a mock replaced in place gets a new id, so a changed mock never meets its
/// old answer). Only the current second's answers are kept: the first hit (or ``prepare(_:)``)
/// of a new second drops all of the previous second's, so a removed mock's answer is not kept
/// past it.
///
/// A mock added or replaced by `update` has its answer made at once on the control lane
/// (``prepare(_:)``), so the first request after the 201, the one that sees the change, finds it
/// made rather than making it on a worker (docs/protocol.md#control-actions); up to
/// ``preparedBytesPerSecond`` of bodies a second, so a burst of updates (a suite loading its
/// mocks) does not keep a copy of every body it sent.
final class SentMockAnswers: Sendable {
    /// A mock's answer in one second.
    struct Answer: Sendable {
        /// The response as sent: stamped and prepared.
        let response: HTTPResponse
        /// `response`'s header fields as journaled for a request to which libmicrohttpd adds
        /// only the framing fields (``MockServing/addsFramingOnly(_:)``), those included.
        let journaledHeaders: String
    }

    /// Whether hits share answers: not with `--cors`, whose fields depend on the request
    /// (``MockServing``'s answers are then made for each request, and nothing is prepared).
    let inUse: Bool
    /// The bytes of response bodies ``prepare(_:)`` copies in one second at most: 8 MiB. Past
    /// them, a mock's first hit makes its answer, as it does for a mock no update prepared.
    static let preparedBytesPerSecond = 8 << 20

    /// The answers of one second.
    private struct Second {
        /// The second's HTTP-date (``HTTPDate/now()``).
        var date = ""
        /// By mock id, the answers made in it.
        var byMockID: [Int64: Answer] = [:]
        /// The bytes of the bodies ``prepare(_:)`` made answers of in it.
        var preparedBytes = 0
    }

    private let current = Mutex(Second())

    /// - Parameter inUse: ``inUse``.
    init(inUse: Bool) {
        self.inUse = inUse
    }

    /// `mock`'s answer now: the one made earlier in the current second (by the clock's
    /// HTTP-date, whatever `Date` the mock sets itself), else the one made now for this
    /// second's HTTP-date (``MockServing/sharedAnswer(of:date:)``, kept for the rest of the second).
    func answer(of mock: Mock) -> Answer {
        let now = HTTPDate.now()
        if let made = current.withLock({ $0.date == now ? $0.byMockID[mock.id] : nil }) { return made }
        let made = MockServing.sharedAnswer(of: mock, date: now)
        current.withLock { current in
            if current.date != now { current = Second(date: now) }
            current.byMockID[mock.id] = made
        }
        return made
    }

    /// Makes `mock`'s answer for the current second now, when its hits will share one (not a
    /// delayed mock's, whose answer waits; nothing when not ``inUse``) and the second's
    /// ``preparedBytesPerSecond`` leave room for its body: called by `update` with the mock it
    /// stored, off the workers, before its 201.
    func prepare(_ mock: Mock) {
        guard inUse, !mock.isDelayed else { return }
        let now = HTTPDate.now()
        let bytes = mock.responseBody.count
        let room = current.withLock { current in
            if current.date != now { current = Second(date: now) }
            guard current.preparedBytes + bytes <= Self.preparedBytesPerSecond else { return false }
            current.preparedBytes += bytes
            return true
        }
        if room { _ = answer(of: mock) }
    }
}
