import CatbirdHTTP
import CatbirdSupport
import Synchronization

/// The head of a 404 with near misses (``NotFoundAnswer``) as it goes out in the current second,
/// made once per second instead of once per miss, as ``SentMockAnswers`` does for a mock's
/// answer: the error's header fields with `Date` stamped (``HTTPResponse/stamped(date:)``), and
/// their journal JSON up to the `Content-Length` libmicrohttpd adds, the only field that changes
/// from one miss to the next (the body's length).
///
/// For a request to which libmicrohttpd adds that field alone (``MockServing/addsFramingOnly(_:)``),
/// without `--cors` (whose fields depend on the request) and with room for any head the server
/// sends itself: the bytes sent and journaled are those ``MockServing``'s general path gives
/// (``HTTPResponse/fieldsAddedOnSending(to:fileLength:)``, `JSONText.appending`).
final class NotFoundHead: Sendable {
    /// One second's head.
    struct Stamped: Sendable {
        /// The HTTP-date it was stamped with (``HTTPDate/now()``).
        let date: String
        /// ``APIError/headers`` with `Date`, as sent.
        let headers: HTTPHeaders
        /// The journal's JSON of `headers` without its closing brace:
        /// `{"Content-Type":"application/json; charset=utf-8","Date":"…"`.
        let openJSON: String

        /// The journal's JSON of the header fields a 404 of `bodyLength` bytes goes out with:
        /// `headers` and the `Content-Length` libmicrohttpd adds. The thread's last one is
        /// reused for the same second and length (the 404s of one tenant's new URLs of one
        /// length have bodies of one length: about 2,300 instructions and a string made per
        /// miss, counted with callgrind).
        func journaledJSON(bodyLength: Int) -> String {
            NotFoundHead.lastJournaled.with { last in
                if let kept = last, kept.length == bodyLength, kept.date == date { return kept.json }
                let json = openJSON + #","Content-Length":""# + String(bodyLength) + #""}"#
                last = (date, bodyLength, json)
                return json
            }
        }
    }

    /// Each thread's last ``Stamped/journaledJSON(bodyLength:)``: its second, its length, the JSON.
    private static let lastJournaled = PerThreadMemo<(date: String, length: Int, json: String)?> { nil }

    private let current = Mutex<Stamped?>(nil)

    /// The head of the current second (by the clock's HTTP-date), made by the first 404 of the second.
    func now() -> Stamped {
        let date = HTTPDate.now()
        if let kept = current.withLock({ $0?.date == date ? $0 : nil }) { return kept }
        let headers = HTTPResponse(status: 404, headers: APIError.headers, body: []).stamped(date: date).headers
        var json = JSONText.appending([("Date", date)], to: APIError.headersJSON)
        json.removeLast()  // its closing brace
        let made = Stamped(date: date, headers: headers, openJSON: json)
        current.withLock { $0 = made }
        return made
    }
}
