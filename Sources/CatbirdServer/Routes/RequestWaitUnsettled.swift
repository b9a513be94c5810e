import CatbirdSupport

/// `POST /catbird/api/requests/wait`'s answer when its `timeout` passed while the journal
/// writer had not yet stored every request of the tenant answered before it (a busy or full
/// database file, or a backlog), and none of those stored matched: whether a matching request
/// arrived is not known yet, so neither the entry nor a 408 can be given. 503 with
/// `Retry-After`, at the deadline, not after the journal reads' 5-s wait for the writer
/// (tester finding tester29a-F6: `timeout: 0` answered after 5 s); logged as a warning (load,
/// ``ServerBusyError``). docs/protocol.md#waiting-for-a-request.
struct RequestWaitUnsettled: ServerBusyError, Sendable, Equatable {
    /// The pattern waited for (``RequestPattern/summary``).
    let pattern: String
    /// The wait's `timeout` as written in the reason, in seconds.
    let seconds: String
    /// Why the writer's rounds fail, when they do (``JournalWriterFailure/reason``); nil while
    /// they are only slow.
    let writerFailure: String?

    var status: Int { 503 }

    var reason: String {
        let why = writerFailure.map { "it cannot write them yet: \($0)" } ?? "it is still writing them"
        return "no request matching \(pattern) is in the journal, but the \(seconds) s timeout passed before the journal writer "
            + "stored every request answered before it (\(why)), so one may have arrived; retry the wait (Retry-After)"
    }
}
