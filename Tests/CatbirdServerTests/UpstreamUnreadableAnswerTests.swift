import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// An upstream that was reached but whose answer cannot be read is said to be so, journaled with
/// that `problem` and not recorded (tester finding tester20a-F5: each of these was answered
/// "upstream unreachable", with no `problem`, as if the upstream were down), and one upstream's
/// broken answer to a HEAD never reaches another request (tester20a-F4), nor do bytes it sends
/// after any complete answer (tester23a-F1).
final class UpstreamUnreadableAnswerTests: RecordingTestCase {
    /// The finding's answers: bytes that are no status line, a chunk size `zz`, a reset after
    /// 1000 of 100000 body bytes, a 200 KB header field (libcurl's message: "Out of memory");
    /// and tester40a-F1's, F6's and F10's: status codes `000`, `099`, `20`, `1000`, 4,000
    /// fields of about 97 bytes, and `chunked` applied twice; and tester56a-F5's: a first header
    /// line led by a space or a tab, status lines of HTTP/1.2 and HTTP/3.0.
    func testAnAnswerThatCannotBeReadIsSaidToBeTheUpstreamsAndJournaled() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let cases = [
            ("/raw/http09", "the upstream's answer could not be read as HTTP/1.x (libcurl: "),
            ("/raw/badchunksize", "the upstream's chunked body is malformed after 0 body bytes (libcurl: "),
            ("/raw/resetmid", "the upstream's answer was cut short: the connection failed after "),
            ("/bigheader/200000", "the upstream's answer has a header field longer than the 100 KiB libcurl reads (libcurl: "),
            // tester40a-F1: status lines whose code is not three digits from 100 were "unreachable".
            ("/raw/status000", "the upstream's status line has no status code from 100 to 999 (libcurl: "),
            ("/raw/status099", "the upstream's status line has no status code from 100 to 999 (libcurl: "),
            ("/raw/status20", "the upstream's status line has no status code from 100 to 999 (libcurl: "),
            ("/raw/status1000", "the upstream's status line has no status code from 100 to 999 (libcurl: "),
            // tester40a-F6: a complete header section past libcurl's 300 KiB was "cut short".
            ("/raw/manyfields", "the upstream's header section is larger than the 300 KiB libcurl reads in all (libcurl: "),
            // tester40a-F10: chunked twice; the inner framing was passed on (and recorded) as the body.
            ("/raw/chunkedtwice", "the upstream's answer has chunked as its transfer coding more than once"),
            ("/raw/chunkedtwolines", "the upstream's answer has chunked as its transfer coding more than once"),
            // tester56a-F5: "upstream unreachable: … A libcurl function was given a bad argument",
            // "… Unsupported HTTP version (1.2) in response".
            ("/raw/leadws", "the upstream's header section could not be read: its first line after the status line starts with "),
            ("/raw/leadtab", "the upstream's header section could not be read: its first line after the status line starts with "),
            ("/raw/v12", "the upstream's status line names HTTP/1.2, "),
            ("/raw/v30", "the upstream's status line names HTTP/3.0, "),
            // tester58a-F3: passed on and recorded as HTTP/1.1's; F4: blamed on the version.
            ("/raw/v20", "the upstream's status line names HTTP/2.0, not HTTP/1.0 or HTTP/1.1"),
            ("/raw/v2", "the upstream's status line names HTTP/2, not HTTP/1.0 or HTTP/1.1"),
            ("/raw/nostatus", "the upstream's status line has no status code from 100 to 999 (libcurl: "),
            ("/raw/abcstatus", "the upstream's status line has no status code from 100 to 999 (libcurl: "),
            // tester58a-F4's aside: libcurl read `200x` as 200, passed on and recorded.
            ("/raw/status200x", #"the upstream's status line has no status code from 100 to 999 (its status line: "HTTP/1.1 200x OK")"#),
        ]
        for (path, reason) in cases {
            let answer = try client.request("GET", path)
            XCTAssertEqual(answer.status, 502, "\(path): \(answer.text)")
            XCTAssertFalse(answer.text.contains("unreachable"), "\(path): \(answer.text)")
            let said = try XCTUnwrap(answer.object["reason"] as? String, "\(path): \(answer.text)")
            XCTAssertTrue(said.hasPrefix(reason), "\(path): \(said)")
            XCTAssertTrue(said.hasSuffix("answered 502 in its place"), "\(path): \(said)")
            try assertMarked502NotRecorded(answer, path: path, problem: said, client: client)
        }
    }

    /// A status line with no reason phrase and no space after its code (`HTTP/1.1 204`) is
    /// valid (RFC 9112 section 4): passed on, as the check that refuses `200x` must not refuse it.
    func testAStatusLineWithoutAReasonPhraseIsPassedOn() throws {
        let recorder = try server(recording: true)
        let answer = try recorder.client().request("GET", "/raw/statusnoreason")
        XCTAssertEqual(answer.status, 204, answer.text)
    }

    /// tester26a-F3, the finding's upstream: a plain GET answered with the whole head
    /// `HTTP/1.1 101 Switching Protocols`, `Upgrade: websocket`, `Connection: Upgrade` and its
    /// blank line, then `raw bytes after upgrade`, then closed. The 502 said the answer was "cut
    /// short inside its header section … before the blank line", which was sent; it now says the
    /// upstream switched protocols unasked, in the answer and the journal's `problem`.
    func testAnUnsolicitedSwitchOfProtocolsIsSaidAsSuch() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let answer = try client.request("GET", "/raw/upgrade101")
        let reason = "the upstream answered 101 Switching Protocols to a request that did not ask to upgrade (Catbird forwards "
            + "no Upgrade field; RFC 9110 section 7.8), so what it sent after that head is no HTTP answer to pass on: "
            + "answered 502 in its place"
        XCTAssertEqual(answer.object["reason"] as? String, reason, answer.text)
        try assertMarked502NotRecorded(answer, path: "/raw/upgrade101", problem: reason, client: client)
    }

    /// tester20a-F4, the finding's sequence three times: a HEAD whose upstream wrongly sends a
    /// chunked body after the answer's head, then another tenant's GET. The body's bytes stayed on
    /// the pooled connection and were read as the GET's answer: 502 "Received HTTP/0.9 when not
    /// allowed", for a request the upstream never saw.
    func testBytesAfterAHeadAnswerNeverReachTheNextForwardedRequest() throws {
        let forwarder = try TestServer { $0.redirectURL = self.upstream.baseURL }
        defer { forwarder.removeFiles() }
        for round in 1...3 {
            // Each on its own connection: the HEAD's answer, of no known length, closes its own.
            let head = try forwarder.client().request("HEAD", "/keep/headchunked")
            XCTAssertEqual(head.status, 200, "round \(round)")
            let next = try forwarder.client().request("GET", "/echo/innocent", headers: E2E.tenantHeader("other-tenant"))
            XCTAssertEqual(next.status, 200, "round \(round): \(next.text)")
            XCTAssertEqual(next.object["path"] as? String, "/echo/innocent", "round \(round): the upstream saw it")
        }
    }

    /// The same kind with a status that has no body: the test upstream sends its 304 and 204
    /// with a body (`status 304`, its Content-Length's worth), which libcurl does not read; the
    /// next request on the pooled connection (a HEAD, in RecordReplayTests) got a 502 "Received
    /// HTTP/0.9 when not allowed". The connection of a bodiless answer is not kept.
    func testBytesAfterABodilessStatusNeverReachTheNextForwardedRequest() throws {
        let forwarder = try TestServer { $0.redirectURL = self.upstream.baseURL }
        defer { forwarder.removeFiles() }
        let client = try forwarder.client()  // one keep-alive connection to Catbird
        for round in 1...3 {
            for status in [304, 204] {
                XCTAssertEqual(try client.request("GET", "/status/\(status)").status, status, "round \(round)")
                let next = try client.request("GET", "/echo/after\(status)", headers: E2E.tenantHeader("other-tenant"))
                XCTAssertEqual(next.status, 200, "round \(round), after a \(status): \(next.text)")
                XCTAssertEqual(next.object["path"] as? String, "/echo/after\(status)", "round \(round)")
            }
        }
    }

    /// tester23a-F1, the finding's sequence three times in record mode: tenant `attacker`'s
    /// `/keep/poison` is answered `hello`, then 0.3 s later the upstream writes a second whole
    /// answer (`INJECTED`, `X-Injected: yes`) on the same connection; 0.6 s after `hello`, tenant
    /// `victim`'s `/api/profile` was sent on that pooled connection and read `INJECTED` as its
    /// answer: served, journaled without a problem and recorded as `api/profile`.
    func testBytesAfterACompleteAnswerNeverBecomeAnotherRequestsAnswer() throws {
        let recorder = try server(recording: true)
        for round in 1...3 {
            let poison = try recorder.client().request("GET", "/keep/poison", headers: E2E.tenantHeader("attacker"))
            XCTAssertEqual(poison.text, "hello", "round \(round)")
            usleep(600_000)
            let victim = try recorder.client().request("GET", "/api/profile", headers: E2E.tenantHeader("victim"))
            XCTAssertEqual(victim.status, 200, "round \(round): \(victim.text)")
            XCTAssertNil(victim.header("X-Injected"), "round \(round): \(victim.text)")
            XCTAssertEqual(victim.object["path"] as? String, "/api/profile", "round \(round): the upstream's own answer")
            let entry = try XCTUnwrap(E2E.journal(recorder.client(), tenant: "victim", query: "limit=1&order=newest").first)
            XCTAssertNil(entry["problem"] as? String, "round \(round): \(entry)")
            let path = try XCTUnwrap(entry["filePath"] as? String, "round \(round): recorded: \(entry)")
            let recorded = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertTrue(recorded.contains("/api/profile") && !recorded.contains("INJECTED"), "round \(round): \(recorded)")
        }
    }

    /// tester23a-F1's realistic variant: an upstream that counts `Content-Length` in characters
    /// (`é`, `ü`: 2 bytes short) and writes the body in a second write. The leftover `r"}` was
    /// read as the next request's status line, 0.2 s later, another tenant's: a 502 "Received
    /// HTTP/0.9 when not allowed" for a request whose own answer was fine.
    func testALengthCountedInCharactersNeverBreaksTheNextRequest() throws {
        let forwarder = try TestServer { $0.redirectURL = self.upstream.baseURL }
        defer { forwarder.removeFiles() }
        for round in 1...3 {
            let short = try forwarder.client().request("GET", "/keep/utf8")
            XCTAssertEqual(short.status, 200, "round \(round)")
            XCTAssertEqual(short.body, Array(#"{"name":"José Müller"#.utf8), "round \(round): cut at the announced length")
            usleep(200_000)
            let next = try forwarder.client().request("GET", "/echo/next", headers: E2E.tenantHeader("other-tenant"))
            XCTAssertEqual(next.status, 200, "round \(round): \(next.text)")
            XCTAssertEqual(next.object["path"] as? String, "/echo/next", "round \(round)")
        }
    }
}
