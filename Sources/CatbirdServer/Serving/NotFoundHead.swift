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
        /// `headers` and the `Content-Length` libmicrohttpd adds. The thread's ones of this
        /// second are reused for the same length (``Journaled``: the 404s of one tenant's new
        /// URLs have bodies of a few lengths; each made is about 1,300 instructions and a
        /// string, counted with callgrind).
        func journaledJSON(bodyLength: Int) -> String {
            NotFoundHead.journaled.with { kept in
                if kept.date != date { kept = Journaled(date: date) }
                if let json = kept.json(bodyLength: bodyLength) { return json }
                let json = openJSON + #","Content-Length":""# + String(bodyLength) + #""}"#
                kept.keep(json, bodyLength: bodyLength)
                return json
            }
        }
    }

    /// One thread's ``Stamped/journaledJSON(bodyLength:)`` made in one second, for its last
    /// ``lengthsKept`` body lengths: a tenant whose misses' near misses differ (their mocks'
    /// ids and distances have more or fewer digits) makes 404s of several lengths in turn, and
    /// the JSON of the thread's last length alone was made again for most of them (1,000
    /// wildcard and regexp mocks: about 1,350 instructions a miss, counted with callgrind).
    struct Journaled {
        /// Lengths kept at most: 8.
        static let lengthsKept = 8
        /// The HTTP-date of the second the JSON was made in ("": none yet).
        let date: String
        private var lengths: [Int] = []
        private var texts: [String] = []
        /// The slot the next length takes once ``lengthsKept`` are kept.
        private var next = 0

        init(date: String) {
            self.date = date
        }

        /// The JSON kept for `bodyLength`, if any.
        func json(bodyLength: Int) -> String? {
            for index in lengths.indices where lengths[index] == bodyLength { return texts[index] }
            return nil
        }

        /// Keeps `json` for `bodyLength`, in place of the oldest length when ``lengthsKept`` are kept.
        mutating func keep(_ json: String, bodyLength: Int) {
            if lengths.count < Self.lengthsKept {
                lengths.append(bodyLength)
                texts.append(json)
            } else {
                lengths[next] = bodyLength
                texts[next] = json
                next = (next + 1) % Self.lengthsKept
            }
        }
    }

    /// Each thread's ``Journaled``.
    private static let journaled = PerThreadMemo<Journaled> { Journaled(date: "") }

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
