import Foundation

/// One call of the server's API: what to send and how to read a 2xx answer's body.
///
/// Every public method builds one of these and hands it to the transport
/// (`Catbird+Transport.swift`), which adds the base URL, the parallel id header, the status
/// check and the calling forms (completion handler, async, synchronous).
struct APICall<Output: Sendable>: Sendable {
    /// `GET`, `POST` or `DELETE`.
    var method: String
    /// Path segments below the base URL, unencoded (each is percent-encoded when sent).
    var path: [String]
    /// Query parameters, unencoded.
    var query: [(name: String, value: String)] = []
    /// A JSON body, sent with `Content-Type: application/json`.
    var body: Data?
    /// Reads a 2xx answer's body.
    var decode: @Sendable (Data) throws -> Output
    /// Turns an expected non-2xx answer of Catbird's (its error JSON) into an output (such as
    /// 404 → `false`); nil for the rest, which are thrown as they are. Another server's answer
    /// of the same status is never recovered (tester finding tester44c-F2: a dev server's 404
    /// page passed for "no such tenant").
    var recover: (@Sendable (CatbirdError) -> Output?)? = nil
    /// How long the server may take to answer, in seconds, when that is longer than a session's
    /// usual request timeout (a long poll); nil for the session's.
    var timeout: TimeInterval? = nil
    /// Whether the call is an admin action, sent with ``Catbird/adminToken`` when there is one.
    var isAdmin = false
    /// Whether the call is an admin action when it acts on the default tenant (no parallel id):
    /// a change of the default tenant's mocks, the shared fixtures, or the deletion of its
    /// journal, which every shard shares too (docs/tenancy.md#default-tenant).
    var isAdminForDefaultTenant = false
    /// The 2xx statuses Catbird answers the call with, for a call whose answer has no JSON to
    /// read (``decode`` ignores it); another 2xx is another server's answer and thrown
    /// (tester finding tester44c-F2: `send` took a dev server's `200` HTML page for a change
    /// made). Nil: any 2xx whose body ``decode`` reads.
    var successStatuses: Set<Int>? = nil
    /// Why the client refuses the call without sending it (a value JSON cannot carry: a
    /// non-finite `equalTo`, SQL parameter or wait timeout); nil: sent. The synchronous and
    /// async forms throw it at once; the completion form delivers it on the session's delegate
    /// queue, where an answer would be. The one way a call is refused before sending.
    var refusal: CatbirdError? = nil
}

extension APICall {
    /// The refusal of a call whose `pattern` holds a number JSON cannot carry (a body pattern's
    /// `equalTo` of NaN or an infinity, which would be sent as `null`: tester finding
    /// tester44c-F5); nil for any other pattern.
    static func refusal(of pattern: RequestPattern?) -> CatbirdError? {
        guard let found = pattern?.body?.equalTo?.nonFiniteNumber(path: "pattern.body.equalTo") else { return nil }
        return CatbirdError(refusal: """
            '\(found.path)' is \(found.value), which JSON cannot carry (it would be sent as null) \
            (refused by the client, nothing sent)
            """)
    }

    /// This call, refused with `refusal` when there is one (see ``refusal``).
    func refused(_ refusal: CatbirdError?) -> APICall {
        var call = self
        call.refusal = refusal ?? call.refusal
        return call
    }
}

extension APICall {
    /// A call whose JSON answer is read as `Answer` and turned into the output by `extract`.
    static func json<Answer: Decodable & Sendable>(
        _ method: String, _ path: [String], query: [(name: String, value: String)] = [], body: Data? = nil,
        extract: @escaping @Sendable (Answer) -> Output
    ) -> APICall {
        APICall(method: method, path: path, query: query, body: body) { data in
            extract(try JSONDecoder().decode(Answer.self, from: data))
        }
    }
}

extension APICall where Output == Void {
    /// A call whose answer's body is ignored; Catbird answers it with one of `statuses`.
    static func ignoringAnswer(_ method: String, _ path: [String], body: Data? = nil, statuses: Set<Int>) -> APICall {
        var call = APICall(method: method, path: path, body: body) { _ in }
        call.successStatuses = statuses
        return call
    }
}

extension APICall {
    /// This call, marked as an admin action (see ``isAdmin``).
    var asAdmin: APICall {
        var call = self
        call.isAdmin = true
        return call
    }

    /// This call with its output turned into another by `transform` (expected non-2xx answers
    /// are no longer recovered).
    func map<Other: Sendable>(_ transform: @escaping @Sendable (Output) -> Other) -> APICall<Other> {
        let decode = self.decode
        return APICall<Other>(method: method, path: path, query: query, body: body, decode: { data in
            transform(try decode(data))
        }, timeout: timeout, isAdmin: isAdmin, isAdminForDefaultTenant: isAdminForDefaultTenant, successStatuses: successStatuses,
        refusal: refusal)
    }

    /// This call with its output replaced by `value` (expected non-2xx answers are no longer
    /// recovered).
    func returning<Other: Sendable>(_ value: Other) -> APICall<Other> {
        map { _ in value }
    }
}
