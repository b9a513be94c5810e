import CatbirdSupport
import CCurl

extension OutboundTransfer {
    /// Why a transfer libcurl failed with `code` (its message `detail`) failed on the
    /// upstream's answer rather than on reaching the upstream, or nil: said as the upstream's
    /// doing, answered 502 and journaled with it as the entry's `problem`
    /// (``OutboundError/unusable(reason:)``), never as "upstream unreachable", which is for an
    /// upstream that could not be reached or said nothing (refused, DNS, timed out, empty reply;
    /// tester finding tester20a-F5: a reset mid-body, a malformed chunk size, a header line
    /// without a colon, an HTTP/0.9 reply and a 200 KB header field, whose libcurl message is
    /// "Out of memory", were all called unreachable, with no `problem`):
    /// - `CURLE_WEIRD_SERVER_REPLY`, or `CURLE_UNSUPPORTED_PROTOCOL` for "Received HTTP/0.9":
    ///   bytes came that are not an HTTP/1.x answer;
    /// - `CURLE_RECV_ERROR` once the answer began (a status line read): the connection failed
    ///   inside it, or its chunked framing was malformed;
    /// - `CURLE_OUT_OF_MEMORY` inside the header section: a field past libcurl's 100 KiB
    ///   (`CURL_MAX_HTTP_HEADER`);
    /// - `CURLE_UNSUPPORTED_PROTOCOL` for "Unsupported HTTP version": a status line of another
    ///   HTTP version than 1.0 or 1.1 (tester finding tester56a-F5: called unreachable);
    /// - `CURLE_BAD_FUNCTION_ARGUMENT` inside the header section: libcurl's header store refuses
    ///   a continuation line with no field before it, a line led by a space or tab right after
    ///   the status line, which RFC 9112 section 2.2 lets a recipient reject (tester56a-F5:
    ///   "upstream unreachable: … A libcurl function was given a bad argument").
    /// The reason of a status line without a status code from 100 to 999 (`said`: libcurl's
    /// words, or the line, in parentheses).
    static func noStatusCode(_ said: String) -> String {
        "the upstream's status line has no status code from 100 to 999 \(said), which no HTTP client can read as an "
            + "answer (RFC 9110 section 15): answered 502 in its place"
    }

    func unreadableAnswer(_ code: CURLcode, detail: String) -> String? {
        let said = "(libcurl: \(detail))"
        switch code {
        case CURLE_WEIRD_SERVER_REPLY:
            return "the upstream's answer could not be read as HTTP/1.x \(said): answered 502 in its place"
        case CURLE_UNSUPPORTED_PROTOCOL where detail.contains("HTTP/0.9"):
            return unreadableAnswer(CURLE_WEIRD_SERVER_REPLY, detail: detail)
        case CURLE_UNSUPPORTED_PROTOCOL where detail.contains("Unsupported response code"):
            // `HTTP/1.1 000`, `099`, `20`, `1000`: a status line libcurl reads but whose code is
            // no three-digit status from 100 (tester finding tester40a-F1: called unreachable).
            return Self.noStatusCode(said)
        case CURLE_RECV_ERROR where !headEnded && detail.contains("Too large response headers"):
            // Many fields, or endless interim answers: complete, just more than libcurl reads
            // (tester finding tester40a-F6: called cut short).
            return "the upstream's header section is larger than the 300 KiB libcurl reads in all \(said): answered 502 in its place"
        case CURLE_RECV_ERROR where status > 0:
            if detail.contains("chunked-encoding") {
                return "the upstream's chunked body is malformed after \(body.count.counted("body byte", "body bytes")) \(said), "
                    + "so where it ends cannot be told (RFC 9112 section 7.1): answered 502 in its place"
            }
            let place = headEnded ? "after \(body.count.counted("body byte", "body bytes"))" : "inside its header section"
            return "the upstream's answer was cut short: the connection failed \(place) \(said), "
                + "so the answer is incomplete (RFC 9112 section 8): answered 502 in its place"
        case CURLE_UNSUPPORTED_PROTOCOL where detail.contains("Unsupported HTTP version"):
            // libcurl says "Unsupported HTTP version in response" of `HTTP/1.1 OK` and
            // `HTTP/1.1 abc OK` too, whose version is fine: their status code is what is missing
            // (tester finding tester58a-F4: blamed on the version).
            guard let version = detail.split(separator: "(").dropFirst().first?.split(separator: ")").first else {
                return Self.noStatusCode(said)
            }
            return "the upstream's status line names HTTP/\(version), not HTTP/1.0 or HTTP/1.1, so its answer cannot be "
                + "read as HTTP/1.x \(said): answered 502 in its place"
        case CURLE_BAD_FUNCTION_ARGUMENT where status > 0 && !headEnded:
            return "the upstream's header section could not be read: its first line after the status line starts with a space or "
                + "a tab, a continuation of no field (RFC 9112 section 2.2) \(said): answered 502 in its place"
        case CURLE_OUT_OF_MEMORY where !headEnded:
            return "the upstream's answer has a header field longer than the 100 KiB libcurl reads \(said): answered 502 in its place"
        default:
            return nil
        }
    }
}
