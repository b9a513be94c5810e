import CatbirdSupport
import CCurl

/// One request in flight: its libcurl easy handle, the bytes coming back, the completion.
///
/// `@unchecked Sendable`: created by ``OutboundClient/send(_:completion:)``, handed to the
/// client's transfer thread under its lock, and from then on touched only by that thread (libcurl
/// calls the data callbacks from `curl_multi_perform` on it) until ``finish(_:)`` passes the
/// result on. No two threads use the mutable fields at once.
final class OutboundTransfer: @unchecked Sendable {
    let request: OutboundRequest
    let completion: @Sendable (Result<OutboundResponse, OutboundError>) -> Void
    let maxResponseSize: Int
    /// Whether the answer is still wanted; asked on the transfer thread (``OutboundClient``).
    let isWanted: @Sendable () -> Bool
    var headers: [(name: String, value: String)] = []
    /// Names of the fields among ``headers`` whose lines were not UTF-8 (held repaired).
    var fieldsNotUTF8: [String] = []
    var body: [UInt8] = []
    var uploaded = 0
    var tooLarge = false
    /// The value of a `Content-Length` field that is no valid length (``OutboundResponse/AnnouncedLength/validLength(_:)``):
    /// the transfer was ended at it (``OutboundError/invalidContentLength(value:detail:)``).
    var invalidLength: String?
    /// Whether the current response's header section ended with its blank line: an answer
    /// whose head was cut short (the upstream closed inside it) is incomplete, even when
    /// libcurl reports success (RFC 9112 section 8; tester finding T15B-F1).
    var headEnded = false
    /// Whether the current response is an interim one (`1xx`): another response follows it.
    var interim = false
    /// The current response's status code, from its status line (0 before one was read).
    var status = 0
    /// Header lines of the current response received so far (``headEnded``'s reason says it).
    var headLines = 0
    /// Why the answer cannot be passed on, found in its header section
    /// (``OutboundError/unusable(reason:)``): the transfer was ended there.
    var unusable: String?
    /// The `chunked` codings the current response's `Transfer-Encoding` fields named so far.
    var chunkedCodings = 0
    /// The most bytes the current answer's body may take of the client's budget: its announced
    /// `Content-Length` (``announcedLength``) once its head ended, else ``maxResponseSize``. A
    /// share grows in doublings up to it, as a request body's stops at its declared length
    /// (tester finding tester44a-F1: a 4,200,000-byte answer held 8 MiB of the budget, so half
    /// as many large answers fitted at once as the docs promise).
    var bodyBound: Int
    /// What ``body`` holds of the client's budget (nil: none); set when it had no room.
    let share: ByteBudget.Share?
    var overBudget = false
    /// Set with ``overBudget`` when only its holder's share of the budget kept the answer out.
    var passedShare = false
    /// The request's header list, kept alive until the transfer ends (libcurl does not copy it).
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's detailed message of a failed transfer (CURLOPT_ERRORBUFFER: `CURL_ERROR_SIZE`
    /// bytes, written by libcurl on the transfer thread, read there once the transfer ended).
    let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        return buffer
    }()

    init(
        request: OutboundRequest, maxResponseSize: Int, budget: ByteBudget?, isWanted: @escaping @Sendable () -> Bool,
        completion: @escaping @Sendable (Result<OutboundResponse, OutboundError>) -> Void
    ) {
        self.request = request
        share = budget.map { ByteBudget.Share(of: $0, for: request.budgetHolder) }
        self.isWanted = isWanted
        self.maxResponseSize = maxResponseSize
        bodyBound = maxResponseSize
        self.completion = completion
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// CURLOPT_WRITEFUNCTION: appends body bytes; returning less than offered aborts the transfer.
    static let receiveBody: catbird_curl_data_callback = { buffer, size, count, user in
        let transfer = Unmanaged<OutboundTransfer>.fromOpaque(user!).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.maxResponseSize else {
            transfer.tooLarge = true
            return 0
        }
        if let share = transfer.share, !share.grow(toHold: transfer.body.count + length, largest: transfer.bodyBound) {
            transfer.overBudget = true
            transfer.passedShare = share.keptOutByShare(toHold: transfer.body.count + length, largest: transfer.bodyBound)
            return 0
        }
        buffer!.withMemoryRebound(to: UInt8.self, capacity: length) {
            transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
        return length
    }

    /// CURLOPT_HEADERFUNCTION: called once per header line, status lines included, and once per
    /// trailer line of a chunked body. A status line starts a new response (a `100 Continue` is
    /// followed by the real one), so it clears what came before; the lines after the final
    /// response's blank line are its trailer fields, which are dropped. libcurl has already
    /// split the lines, this only splits `name: value`. A line
    /// that is not UTF-8 is kept repaired (U+FFFD) and its field named in ``fieldsNotUTF8``.
    static let receiveHeader: catbird_curl_data_callback = { buffer, size, count, user in
        let transfer = Unmanaged<OutboundTransfer>.fromOpaque(user!).takeUnretainedValue()
        let length = size * count
        let (line, isUTF8) = buffer!.withMemoryRebound(to: UInt8.self, capacity: length) {
            let bytes = UnsafeBufferPointer(start: $0, count: length)
            let text = String(decoding: bytes, as: UTF8.self)
            // Decoding repairs: a line that is UTF-8 decodes to as many bytes as it has.
            return (text, text.utf8.count == length && text.utf8.elementsEqual(bytes))
        }
        if transfer.headEnded, !transfer.interim {
            // The trailer section of a chunked body: not merged into the header fields (RFC 9110
            // section 6.5.2; tester finding T15B-F3: a trailer `Set-Cookie` went out, was
            // journaled and recorded as a header field), and not passed on: dropped.
            return length
        }
        if line.hasPrefix("HTTP/") {
            // libcurl reads `HTTP/2` and `HTTP/2.0` status lines on an HTTP/1.1 connection (it
            // refuses 1.2, 3 and 3.0): such an answer was passed on and recorded as HTTP/1.1's
            // (tester finding tester58a-F3).
            let version = line.dropFirst(5).prefix { $0 != " " && !$0.isNewline }
            guard version == "1.1" || version == "1.0" else {
                transfer.unusable = "the upstream's status line names HTTP/\(version), not HTTP/1.0 or HTTP/1.1, so its answer "
                    + "cannot be read as HTTP/1.x (its status line: \(JSONText.shortString(line[...].trimmingWhitespace()))): "
                    + "answered 502 in its place"
                return 0
            }
            // libcurl reads the digits a status code starts with: `HTTP/1.1 200x OK` was passed
            // on, and recorded, as a 200 (tester finding tester58a-F4). RFC 9112 section 4: three
            // digits, then a space or the line's end.
            let code = line.dropFirst(5 + version.count).drop { $0 == " " }.prefix { $0 != " " && !$0.isNewline }
            guard code.utf8.count == 3, code.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                transfer.unusable = OutboundTransfer.noStatusCode("(its status line: \(JSONText.shortString(line[...].trimmingWhitespace())))")
                return 0
            }
            transfer.headers = []
            transfer.fieldsNotUTF8 = []
            transfer.headEnded = false
            transfer.bodyBound = transfer.maxResponseSize
            transfer.headLines = 0
            transfer.chunkedCodings = 0
            transfer.status = line.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
            transfer.interim = (100..<200).contains(transfer.status)
        } else if line == "\r\n" || line == "\n" {
            transfer.headEnded = true
            if transfer.announcesTooLarge {
                transfer.tooLarge = true
                return 0
            }
            if let announced = transfer.announcedLength { transfer.bodyBound = Int(announced) }
        } else if line.first == " " || line.first == "\t" {
            // An obsolete line folding (obs-fold): the line continues the field before it, and
            // the fold is replaced by one space (RFC 9112 section 5.2; tester finding T15B-F5:
            // `X-Fold: a` then `  b` went out, was journaled and recorded as `X-Fold: a`). A
            // whitespace-led line before the first field is consumed (RFC 9112 section 2.2).
            guard let last = transfer.headers.indices.last else { return length }
            let (name, previous) = transfer.headers[last]
            let more = line[...].trimmingWhitespace()
            let value = previous.isEmpty || more.isEmpty ? previous + more : previous + " " + more
            guard transfer.accepts(name: name, value: value) else { return 0 }
            transfer.headers[last].value = value
            if !isUTF8, transfer.fieldsNotUTF8.last != name { transfer.fieldsNotUTF8.append(name) }
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            guard transfer.accepts(name: name, value: value) else { return 0 }
            transfer.headLines += 1
            transfer.headers.append((name: name, value: value))
            if !isUTF8 { transfer.fieldsNotUTF8.append(name) }
        }
        return length
    }

    /// Whether the field `name: value` lets the transfer go on; false when it ends it at the
    /// header section, the reason kept (``invalidLength``, ``unusable``).
    private func accepts(name: String, value: String) -> Bool {
        // No body follows an answer to a HEAD, a 1xx, 204 or 304 (RFC 9112 section 6.3, items 1
        // and 2): its framing fields describe none, and a HEAD's describe the GET's (RFC 9110
        // section 9.3.2), so nothing in them makes it unusable (review: a HEAD answered
        // `Transfer-Encoding: gzip, chunked` got a 502).
        guard OutboundResponse.hasBody(status: status, method: request.method) else { return true }
        if name.equalsIgnoringASCIICase("Content-Length"), OutboundResponse.AnnouncedLength([(name, value)]).hasInvalidValue {
            // libcurl read a prefix (`5abc` as 5, `0x5` as 0) or, past 2^63-1, reads until
            // the upstream closes: ended here, no body read (RFC 9112 section 6.3, item 5).
            invalidLength = value
            return false
        }
        if name.equalsIgnoringASCIICase("Transfer-Encoding") {
            if let reason = Self.unsupportedCoding(value) {
                // libcurl removes the chunked coding alone: gzip bytes went out labelled as the plain body.
                unusable = reason
                return false
            }
            chunkedCodings += value.split(separator: ",").filter { !$0.trimmingOptionalWhitespace().isEmpty }.count
            if chunkedCodings > 1 {
                // libcurl removes one: the inner chunk framing went out as the body, and was
                // recorded so (tester finding tester40a-F10).
                unusable = "the upstream's answer has chunked as its transfer coding more than once (Transfer-Encoding "
                    + "\(JSONText.shortString(value))), which a sender must not apply (RFC 9112 section 7), and libcurl decodes it "
                    + "once: its body cannot be told from its framing, so it is answered 502 in its place"
                return false
            }
        }
        return true
    }

    /// Whether the final answer's header section announces a body over ``maxResponseSize``: a
    /// `Content-Length` of more bytes and no `Transfer-Encoding` (which would override it, RFC
    /// 9112 section 6.3). Such an answer is refused at its head, as a request body is
    /// (docs/operations.md), not after the upstream has sent, or stalled before, the bytes it
    /// could never be taken with (tester finding tester20a-F11.9: `Content-Length: 10000000000`,
    /// 3 bytes, then silence got a 504 after the whole `--upstream-timeout`).
    var announcesTooLarge: Bool {
        guard let length = announcedLength else { return false }
        return length > UInt64(maxResponseSize)
    }

    /// The final answer's body length as its header section announces it: a `Content-Length`
    /// and no `Transfer-Encoding` (which would override it, RFC 9112 section 6.3), for an
    /// answer that has a body; nil otherwise.
    var announcedLength: UInt64? {
        guard !interim, OutboundResponse.hasBody(status: status, method: request.method),
              !headers.contains(where: { $0.name.equalsIgnoringASCIICase("Transfer-Encoding") }) else { return nil }
        return OutboundResponse.AnnouncedLength(headers).length
    }

    /// Why the answer is incomplete although libcurl took it (`CURLE_OK`), or nil: its header
    /// section was cut short, the upstream closed the connection before the blank line that
    /// ends it (`HTTP/1.1 200 OK`, `Content-Type: application/json`, `Content-Len`, then closed):
    /// libcurl passes such an answer on as a complete one with an empty body. Or the last head
    /// was an interim one (1xx) and no final answer followed: a whole `101 Switching Protocols`
    /// head is said as such (``unsolicitedSwitch``).
    var incompleteHead: String? {
        guard !headEnded || interim else { return nil }
        if headEnded, status == 101 { return Self.unsolicitedSwitch }
        return "the upstream's answer was cut short inside its header section: the upstream closed the connection "
            + "after \(headLines.counted("complete header field", "complete header fields")) and before the blank line that ends the header section, "
            + "so the answer is incomplete (RFC 9112 section 8): answered 502 in its place"
    }

    /// What of the answer had arrived when the time limit passed, for the 504's reason:
    /// libcurl's own message counts body bytes only, so a whole head and then silence read
    /// `with 0 bytes received` (tester finding tester64a-F5). Nil when no status line had.
    var arrivedBeforeTimeout: String? {
        guard status != 0 else { return nil }
        let fields = headLines.counted("complete header field", "complete header fields")
        if !headEnded {
            return "by then the upstream had sent its status line (\(status)) and \(fields), not the blank line that ends its head"
        }
        if interim { return "by then the upstream had sent an interim \(status) answer and no final one" }
        let bodyBytes = body.count.counted("body byte", "body bytes")
        let of = announcedLength.map { " of the \($0) its Content-Length announced" } ?? ""
        return "by then the upstream had sent its answer's whole head (\(status), \(fields)) and \(bodyBytes)\(of) "
            + "(libcurl counts body bytes only)"
    }

    /// Why an upstream's whole `101 Switching Protocols` head (its blank line sent, raw bytes of
    /// another protocol after it) cannot be passed on: Catbird forwards no `Upgrade` field
    /// (hop-by-hop), so the request asked for no switch (RFC 9110 section 7.8), and what follows
    /// is no HTTP answer. Said as what it is (tester finding tester26a-F3: it was reported as an
    /// answer "cut short inside its header section … before the blank line", which it was not).
    static let unsolicitedSwitch =
        "the upstream answered 101 Switching Protocols to a request that did not ask to upgrade (Catbird forwards no "
        + "Upgrade field; RFC 9110 section 7.8), so what it sent after that head is no HTTP answer to pass on: "
        + "answered 502 in its place"

    /// Why the answer is incomplete when libcurl says its body was cut short
    /// (`CURLE_PARTIAL_FILE`, `transfer closed with 4 bytes remaining to read`): the upstream
    /// closed the connection before the end its framing announced (`Content-Length: 9` and 5
    /// bytes, then closed), worded by the framing libcurl read the body by: chunked when the
    /// answer has `Transfer-Encoding` (only `chunked` gets this far, ``unsupportedCoding(_:)``),
    /// which overrides a `Content-Length` beside it (RFC 9112 section 6.3, item 3), else its
    /// `Content-Length` (``OutboundResponse/AnnouncedLength``). Said as the upstream's doing,
    /// not as an unreachable upstream.
    var cutShortBody: String {
        let received = body.count
        let chunked = headers.contains { $0.name.equalsIgnoringASCIICase("Transfer-Encoding") }
        let announced = OutboundResponse.AnnouncedLength(headers)
        let what: String
        if !chunked, let declared = announced.length.map({ Int($0) }), declared > received {  // at most 2^63-1
            what = "after \(received) of the \(declared.counted("body byte", "body bytes")) its Content-Length announced "
                + "(\(declared - received) missing)"
        } else if !chunked, announced.differs {
            what = "after \(received.counted("body byte", "body bytes")), before the end its Content-Length values announced ("
                + announced.values.map { JSONText.shortString($0) }.joined(separator: ", ") + ", which differ)"
        } else {
            what = "before the end of its chunked body, after \(received.counted("body byte", "body bytes"))"
        }
        return "the upstream's answer was cut short: the upstream closed the connection " + what
            + ", so the answer is incomplete (RFC 9112 section 8): answered 502 in its place"
    }

    /// Why a `Transfer-Encoding` value names a coding that is not passed on, or nil: any coding
    /// but `chunked` (`gzip, chunked`, `deflate, chunked`, `gzip`), which libcurl leaves on the
    /// body while the field, hop-by-hop, is left out of the answer: the client would get the
    /// encoded bytes as the plain body (tester finding T15B-F16). A transfer coding is the
    /// connection's (RFC 9112 section 6.1): a proxy decodes it or refuses the answer; Catbird
    /// decodes `chunked` alone, and refuses the rest with a 502, as its request side does
    /// with a 501 (docs/protocol.md#malformed-requests).
    static func unsupportedCoding(_ value: String) -> String? {
        let codings = value.split(separator: ",").map { String($0.trimmingOptionalWhitespace()) }.filter { !$0.isEmpty }
        guard !codings.allSatisfy({ $0.equalsIgnoringASCIICase("chunked") }) else { return nil }
        return "the upstream's answer has Transfer-Encoding \(JSONText.shortString(value)), a transfer coding Catbird does "
            + "not decode (only chunked), so its body cannot be passed on as the upstream meant it (RFC 9112 section 6.1): "
            + "answered 502 in its place"
    }

    /// CURLOPT_READFUNCTION: hands out the request body.
    static let sendBody: catbird_curl_data_callback = { buffer, size, count, user in
        let transfer = Unmanaged<OutboundTransfer>.fromOpaque(user!).takeUnretainedValue()
        let length = min(size * count, transfer.request.body.count - transfer.uploaded)
        guard length > 0 else { return 0 }
        transfer.request.body.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer!).copyMemory(from: bytes.baseAddress! + transfer.uploaded, byteCount: length)
        }
        transfer.uploaded += length
        return length
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs, CR and LF.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
